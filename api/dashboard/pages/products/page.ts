import { NotFoundError } from '../../../../shared/errors';
import { categoryChoices as storeCategoryChoices } from '../../../../shared/services/catalogue/choices';
import { listProductKeys } from '../../../../shared/services/catalogue/product-keys';
import {
  findProduct,
  productExtras,
  ProductForm,
  rowsOf,
  storeFivemOn,
} from '../../../../shared/services/catalogue/product-form';
import { formatMoney } from '../../../../shared/money';
import type { AppContext } from '../../../context';
import { sendPage } from '../../layout';
import { dashboardOf } from '../../session';
import { shareCard } from './share';
import { keysCard, productFormView } from './view';

/** The product pages the routes answer with: the form (new, refused), and a product's own page. */

/** The store's categories for the product form's checkboxes. */
function categoryChoices(ctx: AppContext): Promise<{ id: number; name: string }[]> {
  return storeCategoryChoices(ctx.deps.knex, dashboardOf(ctx).store.id);
}

type FormPageOpts = Omit<Parameters<typeof productFormView>[1], 'categories' | 'currency'>;

/** The product form page (new, or a refused save) with the store's categories. */
export async function formPage(ctx: AppContext, status: number, opts: FormPageOpts): Promise<void> {
  const { store, shell } = dashboardOf(ctx);
  sendPage(ctx, {
    status,
    html: productFormView(shell, {
      ...opts,
      currency: store.currency,
      categories: await categoryChoices(ctx),
    }),
  });
}

/** FiveM is on for this product's form: the store has a live game server, or the product has commands. */
export async function fivemOn(ctx: AppContext, productId: number | null): Promise<boolean> {
  const { store } = dashboardOf(ctx);
  if (await storeFivemOn(ctx.deps.knex, store.id)) return true;
  if (productId === null) return false;
  return (await productExtras(ctx.deps, store, productId)).fivem_commands.length > 0;
}

/**
 * A product's own page: the form filled with the product, then (a code product) its keys card, then the
 * share card (buy link, QR code, widget snippet). False: no such product in this store.
 */
export async function productPage(
  ctx: AppContext,
  productId: number,
  opts: {
    status: number;
    notice: string | null;
    keysPage: number;
    keysNotice?: string | null;
    keysError?: string | null;
  },
): Promise<boolean> {
  const { store, shell } = dashboardOf(ctx);
  let product;
  try {
    product = await findProduct(ctx.deps.knex, store.id, productId);
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
  const extras = await productExtras(ctx.deps, store, product.id);
  const values: ProductForm = {
    name: product.name,
    type: product.type,
    price: formatMoney(product.price_minor, store.currency),
    sale_price:
      product.sale_price_minor === null ? '' : formatMoney(product.sale_price_minor, store.currency),
    stock: product.stock === null ? '' : String(product.stock),
    description: product.description ?? '',
    name_ar: product.name_ar ?? '',
    description_ar: product.description_ar ?? '',
    active: product.active,
    codes: '',
    categories: extras.categories.map(String),
    license_on: extras.license.enabled,
    license_prefix: extras.license.prefix ?? '',
    license_lock: extras.license.lock_type,
    license_max: extras.license.enabled ? String(extras.license.max_activations) : '',
    fivem: extras.fivem_commands.map((c) => String(c.command)).join('\n'),
    ...rowsOf(extras),
  };
  const keys =
    product.type === 'code'
      ? keysCard(
          shell,
          product.id,
          await listProductKeys(ctx.deps.knex, store.id, product.id, opts.keysPage),
          {
            notice: opts.keysNotice ?? null,
            error: opts.keysError ?? null,
          },
        )
      : '';
  sendPage(ctx, {
    status: opts.status,
    html: productFormView(shell, {
      productId: product.id,
      values,
      errors: {},
      notice: opts.notice,
      availableCodes: product.type === 'code' ? (product.available_codes ?? 0) : null,
      currency: store.currency,
      categories: await categoryChoices(ctx),
      fivem: (await storeFivemOn(ctx.deps.knex, store.id)) || extras.fivem_commands.length > 0,
      keys,
      share: await shareCard({
        locale: shell.locale,
        publicBaseUrl: ctx.deps.config.publicBaseUrl,
        storeSlug: store.slug,
        productSlug: product.slug,
        productId: product.id,
        embedKey: store.embed_key,
        active: product.active,
        formToken: shell.formToken,
      }),
    }),
  });
  return true;
}
