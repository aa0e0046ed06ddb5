import Joi from 'joi';
import { NotFoundError, ValidationError } from '../../../../shared/errors';
import {
  createProduct,
  findProduct,
  FormErrors,
  productExtras,
  listProducts,
  ProductForm,
  readProductForm,
  rowsOf,
  updateProduct,
} from '../../../../shared/services/catalogue/product-form';
import { categoryChoices as storeCategoryChoices } from '../../../../shared/services/catalogue/choices';
import { formatMoney } from '../../../../shared/money';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { shareCard } from './share';
import { dashboardOf, formField, signedIn } from '../../session';
import { productsView, productFormView } from './view';
import {
  formBody,
  guardedAnswers,
  postAnswers,
  pageQuery,
  idParam,
  notFound,
  listField,
  dashboardActor,
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

/** The store's categories for the product form's checkboxes. */
function categoryChoices(ctx: AppContext): Promise<{ id: number; name: string }[]> {
  return storeCategoryChoices(ctx.deps.knex, dashboardOf(ctx).store.id);
}

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
  const types = listField(ctx, 'field_type');
  const options = listField(ctx, 'field_options');
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
      type: types[i] ?? 'text',
      required: fieldRequired.has(String(i)),
      options: options[i] ?? '',
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
  field_type: rowList(20),
  field_required: rowList(4),
  field_options: rowList(20_000),
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
    description: 'Newest first, 20 a page.',
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
      'Inputs labelled "Name", "Type", "Price", "Sale price", "Stock", "Description", "Add keys", "On sale"; button "Save".',
    guards: signedIn('products.edit'),
    request: { query: Joi.object({ lang: Joi.string().valid('ar', 'en') }) },
    responses: { 200: htmlResponse('The empty form.'), ...guardedAnswers },
    handler: async (ctx) => {
      const { store, shell } = dashboardOf(ctx);
      sendPage(ctx, {
        status: 200,
        html: productFormView(shell, {
          productId: null,
          values: emptyProduct,
          errors: {},
          notice: null,
          availableCodes: null,
          currency: store.currency,
          categories: await categoryChoices(ctx),
        }),
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
      'ticked) and the answer is 303 to its page. Invalid: the form again (422) naming each bad field.',
    guards: signedIn('products.edit'),
    request: formBody(productFields),
    responses: {
      303: redirectResponse('Created: to the product’s page.'),
      422: htmlResponse('The form again, each bad field named.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = productFormOf(ctx);
      const read = readProductForm(values, store.currency);
      if (!read.ok) {
        return sendPage(ctx, {
          status: 422,
          html: productFormView(shell, {
            productId: null,
            values,
            errors: read.errors,
            notice: null,
            availableCodes: null,
            currency: store.currency,
            categories: await categoryChoices(ctx),
          }),
        });
      }
      let id: number;
      try {
        ({ id } = await createProduct(ctx.deps, dashboardActor(store.id, s.user), store, read.input));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        return sendPage(ctx, {
          status: 422,
          html: productFormView(shell, {
            productId: null,
            values,
            errors: formErrorsOf(err),
            notice: null,
            availableCodes: null,
            currency: store.currency,
            categories: await categoryChoices(ctx),
          }),
        });
      }
      sendPage(ctx, { status: 303, location: `/merchant/products/${id}?saved=1` });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/products/{productId}',
    interface: 'platform',
    operationId: 'dashboardProduct',
    summary: 'Merchant dashboard: edit a product',
    description: 'The product form filled with the product; `saved=1` shows the saved notice.',
    guards: signedIn('products.edit'),
    request: {
      params: idParam('productId') as Joi.ObjectSchema<{ productId: number }>,
      query: Joi.object<{ saved?: string; lang?: string }, true>({
        saved: Joi.string().max(2),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: {
      200: htmlResponse('The form.'),
      404: htmlResponse('No such product in this store.'),
      ...guardedAnswers,
    },
    handler: async (ctx, { params, query }) => {
      const { store, shell } = dashboardOf(ctx);
      let product;
      try {
        product = await findProduct(ctx.deps.knex, store.id, params.productId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
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
      sendPage(ctx, {
        status: 200,
        html: productFormView(shell, {
          productId: product.id,
          values,
          errors: {},
          notice: query.saved === '1' ? shell.t.saved : null,
          availableCodes: product.available_codes ?? 0,
          currency: store.currency,
          categories: await categoryChoices(ctx),
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
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products/{productId}',
    interface: 'platform',
    operationId: 'dashboardProductUpdate',
    summary: 'Merchant dashboard: save a product',
    description:
      'The product form; keys in "Add keys" are added (ones the product has are skipped). 303 to the product.',
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
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = productFormOf(ctx);
      const read = readProductForm(values, store.currency);
      if (!read.ok) {
        return sendPage(ctx, {
          status: 422,
          html: productFormView(shell, {
            productId: params.productId,
            values,
            errors: read.errors,
            notice: null,
            availableCodes: null,
            currency: store.currency,
            categories: await categoryChoices(ctx),
          }),
        });
      }
      try {
        await updateProduct(ctx.deps, dashboardActor(store.id, s.user), store, params.productId, read.input);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (!(err instanceof ValidationError)) throw err;
        return sendPage(ctx, {
          status: 422,
          html: productFormView(shell, {
            productId: params.productId,
            values,
            errors: formErrorsOf(err),
            notice: null,
            availableCodes: null,
            currency: store.currency,
            categories: await categoryChoices(ctx),
          }),
        });
      }
      sendPage(ctx, { status: 303, location: `/merchant/products/${params.productId}?saved=1` });
    },
  }),
];
