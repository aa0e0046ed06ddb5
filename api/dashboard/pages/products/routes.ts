import Joi from 'joi';
import { NotFoundError, ValidationError } from '../../../../shared/errors';
import {
  createProduct,
  findProduct,
  FORM_TYPES,
  FormErrors,
  listProducts,
  ProductForm,
  readProductForm,
  updateProduct,
} from '../../../../shared/services/catalogue/product-form';
import { deleteUnsoldKey, KeyNotDeletableError } from '../../../../shared/services/catalogue/product-keys';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { productsView } from './view';
import { fivemOn, formPage, productPage } from './page';
import { PRODUCT_FORM_SCRIPT } from './script';
import { PRODUCT_TEXT } from './strings';
import {
  formBody,
  guardedAnswers,
  postAnswers,
  pageQuery,
  idParam,
  notFound,
  listField,
  dashboardActor,
  pageScriptRoute,
} from '../../forms';

/** The products pages: the list and the product form (create, edit) through the Merchant API's write service. */

const emptyProduct: ProductForm = {
  name: '',
  name_ar: '',
  description_ar: '',
  type: 'product',
  price: '',
  sale_price: '',
  stock: '',
  description: '',
  active: true,
  codes: '',
  categories: [],
  license_on: false,
  license_prefix: '',
  license_lock: 'none',
  license_max: '',
  fivem: '',
  plans: [],
  fields: [],
};

function productFormOf(ctx: AppContext): ProductForm {
  return {
    name: formField(ctx, 'name'),
    type: formField(ctx, 'type') || 'product',
    price: formField(ctx, 'price'),
    sale_price: formField(ctx, 'sale_price'),
    stock: formField(ctx, 'stock'),
    description: formField(ctx, 'description'),
    name_ar: formField(ctx, 'name_ar'),
    description_ar: formField(ctx, 'description_ar'),
    active: formField(ctx, 'active') === '1' || formField(ctx, 'active') === 'on',
    codes: formField(ctx, 'codes'),
    categories: listField(ctx, 'categories'),
    license_on: formField(ctx, 'license_on') === '1',
    license_prefix: formField(ctx, 'license_prefix'),
    license_lock: formField(ctx, 'license_lock'),
    license_max: formField(ctx, 'license_max'),
    fivem: formField(ctx, 'fivem'),
    ...rowsFromForm(ctx),
  };
}

/**
 * The plans and custom fields tables: parallel repeated inputs (`plan_name` once a row, and so on); the
 * checkboxes (`plan_remove`, `field_required`, `field_remove`) send their row's index.
 */
function rowsFromForm(ctx: AppContext): Pick<ProductForm, 'plans' | 'fields'> {
  const ticked = (name: string) => new Set(listField(ctx, name));
  const planRemove = ticked('plan_remove');
  const names = listField(ctx, 'plan_name');
  const ids = listField(ctx, 'plan_id');
  const prices = listField(ctx, 'plan_price');
  const durations = listField(ctx, 'plan_duration');
  const fieldRequired = ticked('field_required');
  const fieldRemove = ticked('field_remove');
  const labels = listField(ctx, 'field_label');
  const labelsAr = listField(ctx, 'field_label_ar');
  const types = listField(ctx, 'field_type');
  const options = listField(ctx, 'field_options');
  const optionsAr = listField(ctx, 'field_options_ar');
  return {
    plans: names.map((name, i) => ({
      id: ids[i] ?? '',
      name,
      price: prices[i] ?? '',
      duration: durations[i] ?? 'monthly',
      remove: planRemove.has(String(i)),
    })),
    fields: labels.map((label, i) => ({
      label,
      label_ar: labelsAr[i] ?? '',
      type: types[i] ?? 'text',
      required: fieldRequired.has(String(i)),
      options: options[i] ?? '',
      options_ar: optionsAr[i] ?? '',
      remove: fieldRemove.has(String(i)),
    })),
  };
}

/** A repeated input of the plans or fields table: one value, or one a row (at most 60 rows). */
const rowList = (max: number) =>
  Joi.alternatives(
    Joi.string().allow('').max(max),
    Joi.array().items(Joi.string().allow('').max(max)).max(60),
  );

const productFields = {
  name: Joi.string().allow('').max(400),
  type: Joi.string().allow('').max(20),
  price: Joi.string().allow('').max(40),
  sale_price: Joi.string().allow('').max(40),
  stock: Joi.string().allow('').max(20),
  description: Joi.string().allow('').max(20_000),
  name_ar: Joi.string().allow('').max(400),
  description_ar: Joi.string().allow('').max(20_000),
  active: Joi.string().allow('').max(5),
  codes: Joi.string().allow('').max(3_000_000),
  categories: Joi.alternatives(Joi.string().max(12), Joi.array().items(Joi.string().max(12)).max(100)),
  license_on: Joi.string().allow('').max(5),
  license_prefix: Joi.string().allow('').max(40),
  license_lock: Joi.string().allow('').valid('', 'none', 'hwid', 'ip'),
  license_max: Joi.string().allow('').max(10),
  fivem: Joi.string().allow('').max(60_000),
  plan_id: rowList(12),
  plan_name: rowList(400),
  plan_price: rowList(40),
  plan_duration: rowList(20),
  plan_remove: rowList(4),
  field_label: rowList(400),
  field_label_ar: rowList(400),
  field_type: rowList(20),
  field_required: rowList(4),
  field_options: rowList(20_000),
  field_options_ar: rowList(20_000),
  field_remove: rowList(4),
};

/** The write service's refusal as the form's errors: each named field of the form says "Check this value". */
function formErrorsOf(err: ValidationError): FormErrors {
  const errors: FormErrors = {};
  const known = [
    'name',
    'type',
    'price',
    'sale_price',
    'stock',
    'description',
    'codes',
    'plans',
    'fields',
  ] as const;
  for (const key of Object.keys(err.errors)) {
    const top = key.split('.')[0] ?? key;
    const field = (known as readonly string[]).includes(top) ? (top as (typeof known)[number]) : 'name';
    errors[field] = 'rejected';
  }
  return errors;
}

export const dashboardProductRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/products',
    interface: 'platform',
    operationId: 'dashboardProducts',
    summary: 'Merchant dashboard: products',
    description: 'Newest first, 20 a page. A code product’s stock is its keys left.',
    guards: signedIn('products.edit'),
    request: { query: pageQuery },
    responses: { 200: htmlResponse('The products list.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const list = await listProducts(ctx.deps.knex, store.id, query.page);
      sendPage(ctx, { status: 200, html: productsView(shell, list, store.currency) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/products/new',
    interface: 'platform',
    operationId: 'dashboardProductNew',
    summary: 'Merchant dashboard: new product form',
    description:
      'Inputs labelled "Name", "Type", "Price", "Sale price", "Stock", "Description", "Add keys", "On sale"; ' +
      'button "Save". `type` (product, code, service, subscription) shows only that type’s sections; ' +
      'without it every section is shown and the page’s script hides those the selected type has not.',
    guards: signedIn('products.edit'),
    request: {
      query: Joi.object<{ lang?: string; type?: string }, true>({
        lang: Joi.string().valid('ar', 'en'),
        type: Joi.string().valid(...FORM_TYPES),
      }),
    },
    responses: { 200: htmlResponse('The empty form.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      await formPage(ctx, 200, {
        productId: null,
        values: { ...emptyProduct, type: query.type ?? emptyProduct.type },
        errors: {},
        notice: null,
        availableCodes: null,
        fivem: await fivemOn(ctx, null),
        showAll: query.type === undefined,
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products',
    interface: 'platform',
    operationId: 'dashboardProductCreate',
    summary: 'Merchant dashboard: create a product',
    description:
      'The product form. Valid: the product is on sale at once through every interface (when "On sale" is ' +
      'ticked) and the answer is 303 to its page. Invalid: the form again (422) naming each bad field. ' +
      'Only the chosen type’s sections are read: another type’s fields are ignored, never saved.',
    guards: signedIn('products.edit'),
    request: formBody(productFields),
    responses: {
      303: redirectResponse('Created: to the product’s page.'),
      422: htmlResponse('The form again, each bad field named.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      const values = productFormOf(ctx);
      const fivem = await fivemOn(ctx, null);
      const again = (errors: FormErrors) =>
        formPage(ctx, 422, { productId: null, values, errors, notice: null, availableCodes: null, fivem });
      const read = readProductForm(values, store.currency, { fivem });
      if (!read.ok) return again(read.errors);
      let id: number;
      try {
        ({ id } = await createProduct(ctx.deps, dashboardActor(store.id, s.user), store, read.input));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        return again(formErrorsOf(err));
      }
      sendPage(ctx, { status: 303, location: `/merchant/products/${id}?saved=1` });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/products/{productId}',
    interface: 'platform',
    operationId: 'dashboardProduct',
    summary: 'Merchant dashboard: a product’s page',
    description:
      'The product form filled with the product (its type’s sections), a code product’s keys (counts and ' +
      'a page of keys masked to their last four characters, `keys_page`), and the share card. `saved=1` ' +
      'shows the saved notice, `key_deleted=1` that a key was deleted.',
    guards: signedIn('products.edit'),
    request: {
      params: idParam('productId') as Joi.ObjectSchema<{ productId: number }>,
      query: Joi.object<{ saved?: string; lang?: string; keys_page: number; key_deleted?: string }, true>({
        saved: Joi.string().max(2),
        lang: Joi.string().valid('ar', 'en'),
        keys_page: Joi.number().integer().min(1).max(1_000_000).default(1),
        key_deleted: Joi.string().max(2),
      }),
    },
    responses: {
      200: htmlResponse('The product’s page.'),
      404: htmlResponse('No such product in this store.'),
      ...guardedAnswers,
    },
    handler: async (ctx, { params, query }) => {
      const { shell } = dashboardOf(ctx);
      const shown = await productPage(ctx, params.productId, {
        status: 200,
        notice: query.saved === '1' ? shell.t.saved : null,
        keysPage: query.keys_page,
        keysNotice: query.key_deleted === '1' ? PRODUCT_TEXT[shell.locale].keyDeleted : null,
      });
      if (!shown) return notFound(ctx);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products/{productId}',
    interface: 'platform',
    operationId: 'dashboardProductUpdate',
    summary: 'Merchant dashboard: save a product',
    description:
      'The product form; keys in "Add keys" are added (ones the product has are skipped). Only the type’s ' +
      'sections are read: another type’s fields are ignored and what they set is left as it is. 303 to ' +
      'the product.',
    guards: signedIn('products.edit'),
    request: {
      params: idParam('productId') as Joi.ObjectSchema<{ productId: number }>,
      ...formBody(productFields),
    },
    responses: {
      303: redirectResponse('Saved: to the product’s page.'),
      404: htmlResponse('No such product in this store.'),
      422: htmlResponse('The form again, each bad field named.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      let product;
      try {
        product = await findProduct(ctx.deps.knex, store.id, params.productId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      const values = productFormOf(ctx);
      const fivem = await fivemOn(ctx, product.id);
      const again = (errors: FormErrors) =>
        formPage(ctx, 422, {
          productId: product.id,
          values,
          errors,
          notice: null,
          availableCodes: product.type === 'code' ? (product.available_codes ?? 0) : null,
          fivem,
        });
      const read = readProductForm(values, store.currency, { fivem });
      if (!read.ok) return again(read.errors);
      try {
        await updateProduct(ctx.deps, dashboardActor(store.id, s.user), store, product.id, read.input);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (!(err instanceof ValidationError)) throw err;
        return again(formErrorsOf(err));
      }
      sendPage(ctx, { status: 303, location: `/merchant/products/${product.id}?saved=1` });
    },
  }),
  pageScriptRoute({
    path: '/merchant/assets/product-form.js',
    operationId: 'dashboardProductFormScript',
    summary: 'Merchant dashboard: the product form’s script',
    description:
      'Shows the sections of the type the select names and hides (and disables) the others. The form ' +
      'works without it.',
    source: PRODUCT_FORM_SCRIPT,
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products/{productId}/keys/{keyId}/delete',
    interface: 'platform',
    operationId: 'dashboardProductKeyDelete',
    summary: 'Merchant dashboard: delete an unsold key',
    description:
      'Deletes one key of a code product that is on sale (audited as `product.codes_withdrawn`). A sold ' +
      'key, or one a checkout in progress holds, is refused (409, the product page saying why). Under a ' +
      'concurrent sale the key is either sold or deleted, never both.',
    guards: signedIn('products.edit'),
    request: {
      params: Joi.object({
        productId: Joi.number().integer().min(1).max(2_147_483_647).required(),
        keyId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ productId: number; keyId: number }>,
      ...formBody({}),
    },
    responses: {
      303: redirectResponse('Deleted: to the product’s keys.'),
      404: htmlResponse('No such key on this store’s product.'),
      409: htmlResponse('The key is sold or held by a checkout (the product page, saying so).'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const p = PRODUCT_TEXT[shell.locale];
      try {
        await deleteUnsoldKey(
          ctx.deps,
          dashboardActor(store.id, s.user),
          store.id,
          params.productId,
          params.keyId,
        );
        return sendPage(ctx, {
          status: 303,
          location: `/merchant/products/${params.productId}?key_deleted=1#keys`,
        });
      } catch (err) {
        if (err instanceof NotFoundError) {
          const shown = await productPage(ctx, params.productId, {
            status: 404,
            notice: null,
            keysPage: 1,
            keysError: p.keyGone,
          });
          return shown ? undefined : notFound(ctx);
        }
        if (!(err instanceof KeyNotDeletableError)) throw err;
        await productPage(ctx, params.productId, {
          status: 409,
          notice: null,
          keysPage: 1,
          keysError: err.reason === 'sold' ? p.keySoldRefused : p.keyHeldRefused,
        });
      }
    },
  }),
];
