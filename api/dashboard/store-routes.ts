import Joi from 'joi';
import { emailsForOrder } from '../../shared/services/emails';
import { ORDER_STATUS, OrderStatus, STORE_ROLES, StoreRole } from '../../db/models';
import { ConflictError, InvalidError, NotFoundError, ValidationError } from '../../shared/errors';
import {
  inviteStaff,
  listStaff,
  removeStaff,
  setMemberGrants,
  STORE_NAME_MAX,
} from '../../shared/services/dashboard/accounts';
import {
  homeFigures,
  listCustomers,
  paymentAttempts,
  productChoices,
} from '../../shared/services/dashboard/home';
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
} from '../../shared/services/dashboard/products';
import { can, type Permission, permissionForStatus } from '../../shared/services/dashboard/roles';
import { listOrders, orderDetail } from '../../shared/services/merchant/orders';
import { storeStatistics } from '../../shared/services/merchant/statistics';
import { TRANSITIONS, updateOrderStatus } from '../../shared/services/merchant/transitions';
import { formatMoney, parseMoney } from '../../shared/money';
import { orderRefunds } from '../../shared/services/dashboard/refunds';
import { documentLink } from '../../shared/services/invoices/read';
import { requestRefund } from '../../shared/services/refunds';
import {
  rotateEmbedKey,
  supportEmailSchema,
  updateStoreSettings,
} from '../../shared/services/merchant/store-settings';
import {
  DOMAIN_LIMIT,
  domainStates,
  platformHostOf,
  refusedDomains,
  verifyStoreDomain,
} from '../../shared/services/merchant/domains';
import { formatAmount } from '../pay/i18n';
import { listAudit } from '../../shared/services/merchant/audit';
import type { AppContext } from '../context';
import { defineRoute } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { sendPage } from './layout';
import { dashboardOf, formField, messagePage, signedIn } from './session';
import {
  confirmRefundView,
  confirmStatusView,
  OrderExtras,
  customersView,
  homeView,
  OrderDetailView,
  orderView,
  ordersView,
  productFormView,
  productsView,
  confirmRotateView,
  settingsView,
  staffView,
} from './store-views';

/**
 * The signed-in dashboard pages. Reads and writes go through the same services as the Merchant API
 * (orders, transitions), so a status the dashboard sets is the one the API reports, with the same audit
 * row and webhooks. Each page names the permission it needs (shared/services/dashboard/roles.ts).
 */

const formBody = (fields: Record<string, Joi.Schema>) => ({
  bodyTypes: ['application/x-www-form-urlencoded' as const],
  body: Joi.object({ _csrf: Joi.string().max(200), ...fields }).unknown(true),
});

const guardedAnswers = {
  302: redirectResponse('Not signed in: to the sign-in page.'),
  403: htmlResponse('Not allowed for this role, or (POST) a missing or wrong form token.'),
};
const postAnswers = {
  403: htmlResponse('Not allowed for this role, a missing or wrong form token, or a form from another site.'),
};

const pageQuery = Joi.object<{ page: number; lang?: string }, true>({
  page: Joi.number().integer().min(1).max(100_000).default(1),
  lang: Joi.string().valid('ar', 'en'),
});
const idParam = (name: string) =>
  Joi.object({ [name]: Joi.number().integer().min(1).max(2_147_483_647).required() });

function notFound(ctx: AppContext) {
  const { shell } = dashboardOf(ctx);
  return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
}

const emptyProduct: ProductForm = {
  name: '',
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
async function categoryChoices(ctx: AppContext): Promise<{ id: number; name: string }[]> {
  const { store } = dashboardOf(ctx);
  const rows = await ctx.deps
    .knex('categories')
    .where('store_id', store.id)
    .orderBy(['position', 'id'])
    .limit(200)
    .select('id', 'name');
  return rows.map((r) => ({ id: Number(r.id), name: String(r.name) }));
}

/** A repeated form field (checkboxes): every value given, strings only. */
function listField(ctx: AppContext, name: string): string[] {
  const value = (ctx.request.body as Record<string, unknown> | undefined)?.[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === 'string').slice(0, 100);
}

function productFormOf(ctx: AppContext): ProductForm {
  return {
    name: formField(ctx, 'name'),
    type: formField(ctx, 'type') || 'product',
    price: formField(ctx, 'price'),
    sale_price: formField(ctx, 'sale_price'),
    stock: formField(ctx, 'stock'),
    description: formField(ctx, 'description'),
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

async function renderOrder(
  ctx: AppContext,
  orderId: number,
  notice: string | null,
  status = 200,
  refundForm: OrderExtras['refundForm'] = null,
) {
  const { store, shell } = dashboardOf(ctx);
  let detail: OrderDetailView;
  try {
    detail = (await orderDetail(
      ctx.deps.knex,
      store.id,
      orderId,
      ctx.deps.config.publicBaseUrl,
    )) as unknown as OrderDetailView;
  } catch (err) {
    if (err instanceof NotFoundError) return notFound(ctx);
    throw err;
  }
  const { knex, config } = ctx.deps;
  const [attempts, refunds, document, audit, emails] = await Promise.all([
    paymentAttempts(knex, store.id, orderId),
    orderRefunds(knex, store.id, orderId),
    documentLink(knex, { appSecret: ctx.deps.appSecret, publicBaseUrl: config.publicBaseUrl }, orderId),
    listAudit(knex, store.id, { resource_type: 'order', resource_id: orderId }, { page: 1, per_page: 50 }),
    emailsForOrder(knex, orderId),
  ]);
  sendPage(ctx, {
    status,
    html: orderView(shell, detail, TRANSITIONS[detail.status as OrderStatus] ?? [], notice, attempts, {
      refunds,
      document,
      refundForm,
      audit: audit.items,
      emails,
    }),
  });
}

export const dashboardStoreRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant',
    interface: 'platform',
    operationId: 'dashboardHome',
    summary: 'Merchant dashboard: home',
    description:
      'The dashboard of the signed-in merchant’s store: today’s and this month’s sales, orders and new ' +
      'customers, a 30-day sales chart. Not signed in: 302 to `/merchant/signin`. Arabic (`?lang=ar`, right ' +
      'to left) or English (`?lang=en`), else the browser’s Accept-Language.',
    guards: signedIn(null),
    request: { query: Joi.object<{ lang?: string }, true>({ lang: Joi.string().valid('ar', 'en') }) },
    responses: { 200: htmlResponse('The home page.'), ...guardedAnswers },
    handler: async (ctx) => {
      const { store, shell } = dashboardOf(ctx);
      const [figures, stats] = await Promise.all([
        homeFigures(ctx.deps.knex, store),
        storeStatistics(ctx.deps.knex, store),
      ]);
      const conversion = {
        visitors: stats.traffic.visitors_30_days,
        orders: stats.sales.last_30_days.orders,
      };
      sendPage(ctx, { status: 200, html: homeView(shell, store.plan, figures, conversion) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/orders',
    interface: 'platform',
    operationId: 'dashboardOrders',
    summary: 'Merchant dashboard: orders',
    description:
      'Newest first, 20 a page; filters `status` (1 to 6), `phone` (the customer’s, digits), `product` (id), ' +
      '`from` and `to` (UTC days, YYYY-MM-DD, both included).',
    guards: signedIn('orders.view'),
    request: {
      query: Joi.object<
        {
          page: number;
          status?: number;
          phone?: string;
          product?: number;
          from?: string;
          to?: string;
          lang?: string;
        },
        true
      >({
        page: Joi.number().integer().min(1).max(100_000).default(1),
        status: Joi.number().integer().min(1).max(6).empty(''),
        phone: Joi.string()
          .pattern(/^\d{3,20}$/)
          .empty(''),
        product: Joi.number().integer().min(1).max(2_147_483_647).empty(''),
        from: Joi.string()
          .pattern(/^\d{4}-\d{2}-\d{2}$/)
          .empty('')
          .description('First day (UTC), YYYY-MM-DD.'),
        to: Joi.string()
          .pattern(/^\d{4}-\d{2}-\d{2}$/)
          .empty('')
          .description('Last day (UTC), YYYY-MM-DD, included.'),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: { 200: htmlResponse('The orders list.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const day = (text: string | undefined, end: boolean): Date | undefined => {
        if (!text) return undefined;
        const d = new Date(`${text}T00:00:00Z`);
        if (Number.isNaN(d.getTime())) return undefined;
        return end ? new Date(d.getTime() + 86_400_000 - 1) : d;
      };
      const [list, products] = await Promise.all([
        listOrders(
          ctx.deps.knex,
          store.id,
          {
            status: query.status ? [query.status] : undefined,
            phone: query.phone,
            product_id: query.product,
            from: day(query.from, false),
            to: day(query.to, true),
          },
          { page: query.page, per_page: 20 },
        ),
        productChoices(ctx.deps.knex, store.id),
      ]);
      sendPage(ctx, {
        status: 200,
        html: ordersView(
          shell,
          list,
          {
            status: query.status ? String(query.status) : '',
            phone: query.phone ?? '',
            from: query.from ?? '',
            to: query.to ?? '',
            product: query.product ? String(query.product) : '',
          },
          products,
        ),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/orders/{orderId}',
    interface: 'platform',
    operationId: 'dashboardOrder',
    summary: 'Merchant dashboard: one order',
    description:
      'Items with custom-field answers, delivered keys (masked), licenses, payment, history, and the status ' +
      'moves the transition table allows for this order and the person’s role.',
    guards: signedIn('orders.view'),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      query: Joi.object({ lang: Joi.string().valid('ar', 'en') }),
    },
    responses: {
      200: htmlResponse('The order.'),
      404: htmlResponse('No such order in this store.'),
      ...guardedAnswers,
    },
    handler: (ctx, { params }) => renderOrder(ctx, params.orderId, null),
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/orders/{orderId}/status',
    interface: 'platform',
    operationId: 'dashboardOrderStatus',
    summary: 'Merchant dashboard: change an order’s status',
    description:
      'Form fields `status` (2 to 6) and `_csrf`. Cancel (5) and refund (6) first answer a confirmation page; ' +
      'the confirmed form adds `confirm=1`. Same rules and effects as `PUT /shawarma/orders/{id}`. Support ' +
      'may not cancel or refund, nor confirm a payment (Awaiting payment or Under review to In progress or ' +
      'Completed) unless an owner granted it on the staff page (403).',
    guards: signedIn('orders.view'),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      ...formBody({ status: Joi.string().max(2), confirm: Joi.string().max(2) }),
    },
    responses: {
      200: htmlResponse('The confirmation page (cancel, refund) or the order with the new status.'),
      404: htmlResponse('No such order in this store.'),
      422: htmlResponse('A move the transition table does not allow (the order page, saying so).'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, membership } = dashboardOf(ctx);
      const target = Number(formField(ctx, 'status'));
      if (![2, 3, 4, 5, 6].includes(target)) return renderOrder(ctx, params.orderId, null, 422);
      // The move's permission depends on where the order is now: confirming a payment (Awaiting payment or
      // Under review to In progress or Completed) is granted apart (shared/services/dashboard/roles.ts).
      const current = await ctx.deps
        .knex('orders')
        .where({ id: params.orderId, store_id: store.id })
        .first<{ status: number } | undefined>('status');
      if (!current) return notFound(ctx);
      if (!can(membership.role, permissionForStatus(target, Number(current.status)), membership.grants)) {
        return sendPage(ctx, messagePage(shell, 403, shell.t.forbiddenTitle, shell.t.forbidden));
      }
      if (
        (target === ORDER_STATUS.CANCELLED || target === ORDER_STATUS.REFUNDED) &&
        formField(ctx, 'confirm') !== '1'
      ) {
        return sendPage(ctx, { status: 200, html: confirmStatusView(shell, params.orderId, target) });
      }
      try {
        const result = await updateOrderStatus(ctx.deps, store.id, params.orderId, target as OrderStatus, {
          merchantTokenId: null,
        });
        return renderOrder(ctx, params.orderId, shell.t.statusChanged(shell.t.statusName[result.status]));
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof ValidationError) return renderOrder(ctx, params.orderId, null, 422);
        throw err;
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/orders/{orderId}/refund',
    interface: 'platform',
    operationId: 'dashboardOrderRefund',
    summary: 'Merchant dashboard: refund an order in full or in part',
    description:
      'Form fields `amount` (a decimal in the order’s currency, at most what is left to refund: 3 decimals ' +
      'for KWD, BHD, OMR), `reason` (optional) and `_csrf`. First answers a confirmation page; the ' +
      'confirmed form adds `confirm=1` and the refund is made as `POST /shawarma/orders/{id}/refunds` makes ' +
      'it (all that is left: the order becomes Refunded; less: it keeps its status). Owners and managers.',
    guards: signedIn('orders.refund'),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      ...formBody({
        amount: Joi.string().allow('').max(40),
        reason: Joi.string().allow('').max(500),
        confirm: Joi.string().max(2),
      }),
    },
    responses: {
      200: htmlResponse('The confirmation page, or the order with the refund.'),
      404: htmlResponse('No such order in this store.'),
      422: htmlResponse('The order page, naming a bad amount.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      const money = await orderRefunds(ctx.deps.knex, store.id, params.orderId);
      if (!money) return notFound(ctx);
      const amountText = formField(ctx, 'amount').trim();
      const reason = formField(ctx, 'reason').trim().slice(0, 500);
      const amountMinor = parseMoney(amountText, money.currency);
      const left = formatAmount(money.refundableMinor, money.currency, shell.locale);
      if (amountMinor === null || amountMinor <= 0 || amountMinor > money.refundableMinor) {
        return renderOrder(ctx, params.orderId, null, 422, {
          amount: amountText,
          reason,
          error: shell.t.errRefundAmount(left),
        });
      }
      if (formField(ctx, 'confirm') !== '1') {
        return sendPage(ctx, {
          status: 200,
          html: confirmRefundView(shell, params.orderId, money, amountMinor, reason),
        });
      }
      try {
        await requestRefund(
          ctx.deps,
          store.id,
          params.orderId,
          { amountMinor, reason: reason || null },
          { merchantTokenId: null },
        );
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof ValidationError || err instanceof ConflictError) {
          return renderOrder(ctx, params.orderId, null, 422, {
            amount: amountText,
            reason,
            error: shell.t.errRefundAmount(left),
          });
        }
        throw err;
      }
      return renderOrder(
        ctx,
        params.orderId,
        shell.t.refundDone(formatAmount(amountMinor, money.currency, shell.locale)),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/customers',
    interface: 'platform',
    operationId: 'dashboardCustomers',
    summary: 'Merchant dashboard: customers',
    description: 'Newest first, 20 a page, with each customer’s order count and paid total.',
    guards: signedIn('customers.view'),
    request: { query: pageQuery },
    responses: { 200: htmlResponse('The customers list.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const list = await listCustomers(ctx.deps.knex, store.id, query.page);
      sendPage(ctx, { status: 200, html: customersView(shell, list, query.page, store.currency) });
    },
  }),
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
  defineRoute({
    method: 'get',
    path: '/merchant/staff',
    interface: 'platform',
    operationId: 'dashboardStaff',
    summary: 'Merchant dashboard: staff',
    description: 'The store’s members and their roles, and the invite form. Owners only.',
    guards: signedIn('staff.manage'),
    request: {
      query: Joi.object({ lang: Joi.string().valid('ar', 'en'), saved: Joi.string().valid('1') }),
    },
    responses: { 200: htmlResponse('The staff page.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const staff = await listStaff(ctx.deps.knex, store.id);
      sendPage(ctx, {
        status: 200,
        html: staffView(shell, staff, {
          values: { name: '', country_code: '966', phone: '', role: 'support' },
          error: null,
          notice: (query as { saved?: string }).saved === '1' ? shell.t.grantsSaved : null,
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/staff',
    interface: 'platform',
    operationId: 'dashboardStaffInvite',
    summary: 'Merchant dashboard: invite a team member',
    description:
      'Form fields `name`, `country_code`, `phone`, `role` (owner, manager, support). They sign in with that phone.',
    guards: signedIn('staff.manage'),
    request: formBody({
      name: Joi.string().allow('').max(400),
      country_code: Joi.string().allow('').max(8),
      phone: Joi.string().allow('').max(40),
      role: Joi.string().allow('').max(20),
    }),
    responses: {
      200: htmlResponse('The staff page with the new member.'),
      409: htmlResponse('The phone is already on the staff.'),
      422: htmlResponse('A bad phone or role.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = {
        name: formField(ctx, 'name').trim(),
        country_code: formField(ctx, 'country_code').trim(),
        phone: formField(ctx, 'phone').trim(),
        role: formField(ctx, 'role'),
      };
      let status = 200;
      let error: string | null = null;
      let notice: string | null = null;
      if (!(STORE_ROLES as readonly string[]).includes(values.role)) {
        status = 422;
        error = shell.t.errInvalidPhone;
      } else {
        try {
          await inviteStaff(ctx.deps.knex, store.id, s.user.id, {
            ...values,
            role: values.role as StoreRole,
          });
          notice = shell.t.invited;
        } catch (err) {
          if (err instanceof ValidationError) [status, error] = [422, shell.t.errInvalidPhone];
          else if (err instanceof ConflictError) [status, error] = [409, shell.t.errAlreadyStaff];
          else throw err;
        }
      }
      const staff = await listStaff(ctx.deps.knex, store.id);
      const shown = notice
        ? { name: '', country_code: values.country_code, phone: '', role: 'support' }
        : values;
      sendPage(ctx, { status, html: staffView(shell, staff, { values: shown, error, notice }) });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/staff/{memberId}/grants',
    interface: 'platform',
    operationId: 'dashboardStaffGrants',
    summary: 'Merchant dashboard: what a team member may do beyond their role',
    description:
      'Owners only. Form field `confirm_payment` (`1`, the checkbox ticked; absent, not): the member may ' +
      'confirm bank transfers and PayPal payments, which releases the goods (support has it only so ' +
      'granted; owners and managers by their role). Audited. 303 to the staff page.',
    guards: signedIn('staff.manage'),
    request: {
      params: idParam('memberId') as Joi.ObjectSchema<{ memberId: number }>,
      ...formBody({ confirm_payment: Joi.string().valid('1') }),
    },
    responses: {
      303: redirectResponse('Saved: to the staff page.'),
      404: htmlResponse('No such member in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      const grants: Permission[] =
        formField(ctx, 'confirm_payment') === '1' ? ['orders.confirm_payment'] : [];
      try {
        await setMemberGrants(ctx.deps.knex, dashboardActor(store.id, s.user), params.memberId, grants);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/staff?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/staff/{memberId}/remove',
    interface: 'platform',
    operationId: 'dashboardStaffRemove',
    summary: 'Merchant dashboard: remove a team member',
    description: 'The store always keeps at least one owner. 303 to the staff page.',
    guards: signedIn('staff.manage'),
    request: { params: idParam('memberId') as Joi.ObjectSchema<{ memberId: number }>, ...formBody({}) },
    responses: {
      303: redirectResponse('Removed: to the staff page.'),
      404: htmlResponse('No such member in this store.'),
      409: htmlResponse('The last owner cannot be removed.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      try {
        await removeStaff(ctx.deps.knex, store.id, params.memberId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof InvalidError)
          return sendPage(ctx, messagePage(shell, 409, shell.t.staff, shell.t.errLastOwner));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/staff' });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/settings',
    interface: 'platform',
    operationId: 'dashboardSettings',
    summary: 'Merchant dashboard: settings',
    description:
      'Store name, allowed origins and domains (editable; each pending domain with the DNS TXT record that ' +
      'proves it and a verify button); currency, embed key and the buy button snippet.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<
        { saved?: string; rotated?: string; domain?: 'verified' | 'pending'; lang?: string },
        true
      >({
        saved: Joi.string().max(2),
        rotated: Joi.string().max(2),
        domain: Joi.string().valid('verified', 'pending'),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: { 200: htmlResponse('The settings page.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const t = shell.t;
      const notice =
        query.saved === '1'
          ? t.saved
          : query.rotated === '1'
            ? t.keyRotated
            : query.domain === 'verified'
              ? t.domainNowVerified
              : query.domain === 'pending'
                ? t.domainStillPending
                : null;
      sendPage(ctx, {
        status: 200,
        html: await settingsPage(ctx, shell, {
          name: store.name,
          origins: store.allowed_origins.join('\n'),
          errors: {},
          notice,
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/settings',
    interface: 'platform',
    operationId: 'dashboardSettingsSave',
    summary: 'Merchant dashboard: save settings',
    description:
      'Form fields `name`, `allowed_origins` (one origin a line), `domains` (one host name a line, the whole ' +
      'list; left out: unchanged; new ones pending until proven), `support_email` (the Reply-To of the ' +
      'store’s e-mails; empty: none; left out: unchanged). Written as `PATCH /shawarma/store` writes ' +
      'them, with its audit row. 303 back to settings; 422 with the form naming a refused domain.',
    guards: signedIn('settings.edit'),
    request: formBody({
      name: Joi.string().allow('').max(400),
      allowed_origins: Joi.string().allow('').max(20_000),
      domains: Joi.string().allow('').max(20_000),
      support_email: Joi.string().allow('').max(1_000),
    }),
    responses: {
      303: redirectResponse('Saved.'),
      422: htmlResponse('The form again, naming the bad field.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const name = formField(ctx, 'name').trim();
      const originsText = formField(ctx, 'allowed_origins');
      const lines = (text: string) => [
        ...new Set(
          text
            .split(/\r?\n/)
            .map((o) => o.trim())
            .filter(Boolean),
        ),
      ];
      const origins = lines(originsText);
      const domainsGiven = Object.hasOwn((ctx.request.body as object | undefined) ?? {}, 'domains');
      const domainsText = formField(ctx, 'domains');
      const domains = lines(domainsText).map((d) => d.toLowerCase());
      const supportGiven = Object.hasOwn((ctx.request.body as object | undefined) ?? {}, 'support_email');
      const supportText = formField(ctx, 'support_email').trim();
      const supportEmail = supportText === '' ? null : supportText.toLowerCase();
      const errors: { name?: string; origins?: string; domains?: string; supportEmail?: string } = {};
      if (!name || name.length > STORE_NAME_MAX) errors.name = shell.t.errStoreName;
      if (supportEmail !== null && supportEmailSchema.validate(supportEmail).error) {
        errors.supportEmail = shell.t.errSupportEmail;
      }
      if (origins.length > 50 || origins.some((o) => !isOrigin(o))) errors.origins = shell.t.errOrigins;
      if (domainsGiven) {
        const refused = refusedDomains(domains, platformHostOf(ctx.deps.config.publicBaseUrl));
        if (domains.length > DOMAIN_LIMIT || refused.some((r) => r.reason === 'syntax')) {
          errors.domains = shell.t.errDomains;
        } else if (refused.length > 0) errors.domains = shell.t.errDomainReserved;
      }
      const again = () =>
        settingsPage(ctx, shell, {
          name,
          origins: originsText,
          domains: domainsGiven ? domainsText : undefined,
          supportEmail: supportGiven ? supportText : undefined,
          errors,
          notice: null,
        }).then((html) => sendPage(ctx, { status: 422, html }));
      if (errors.name || errors.origins || errors.domains || errors.supportEmail) return again();
      try {
        await updateStoreSettings(ctx.deps, dashboardActor(store.id, s.user), store.id, {
          name,
          allowed_origins: origins,
          ...(domainsGiven ? { domains } : {}),
          ...(supportGiven ? { support_email: supportEmail } : {}),
        });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        errors.domains = shell.t.errDomainTaken;
        return again();
      }
      sendPage(ctx, { status: 303, location: '/merchant/settings?saved=1' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/settings/domains/verify',
    interface: 'platform',
    operationId: 'dashboardVerifyDomain',
    summary: 'Merchant dashboard: verify a domain now',
    description:
      'Form field `domain`: looks its DNS TXT record up now, as `POST /shawarma/store/domains/{domain}/verify` ' +
      'does. 303 to settings, saying whether the domain is verified; a domain the store does not hold is a 404.',
    guards: signedIn('settings.edit'),
    request: formBody({ domain: Joi.string().allow('').max(300) }),
    responses: {
      303: redirectResponse('Looked up: to settings, with the outcome.'),
      404: htmlResponse('The store holds no such domain.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      const domain = formField(ctx, 'domain').trim().toLowerCase();
      let state: Awaited<ReturnType<typeof verifyStoreDomain>>;
      try {
        state = await verifyStoreDomain(ctx.deps, dashboardActor(store.id, s.user), store.id, domain);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      sendPage(ctx, { status: 303, location: `/merchant/settings?domain=${state.status}` });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/settings/embed-key',
    interface: 'platform',
    operationId: 'dashboardRotateEmbedKey',
    summary: 'Merchant dashboard: rotate the embed key',
    description:
      'Form field `_csrf`; first answers a confirmation page, the confirmed form adds `confirm=1`. Same as ' +
      '`POST /shawarma/store/embed-key`: the old key is refused at once. 303 to settings.',
    guards: signedIn('settings.edit'),
    request: formBody({ confirm: Joi.string().max(2) }),
    responses: {
      200: htmlResponse('The confirmation page.'),
      303: redirectResponse('Rotated: to settings, showing the new key.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      if (formField(ctx, 'confirm') !== '1') {
        return sendPage(ctx, { status: 200, html: confirmRotateView(shell) });
      }
      await rotateEmbedKey(ctx.deps, dashboardActor(store.id, s.user), store.id);
      sendPage(ctx, { status: 303, location: '/merchant/settings?rotated=1' });
    },
  }),
];

/** Who the Merchant API's audit log names for a dashboard write: the person, by phone. */
export function dashboardActor(storeId: number, user: { e164: string }) {
  return { storeId, tokenId: null, name: `dashboard:+${user.e164}` };
}

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

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/** A product of the store on sale, for the live widget preview: the newest one. */
async function previewProduct(
  knex: AppContext['deps']['knex'],
  storeId: number,
): Promise<{ productId: number; productName: string } | null> {
  const row = await knex('products')
    .where({ store_id: storeId, active: true })
    .whereNull('archived_at')
    .orderBy('id', 'desc')
    .first<{ id: number; name: string } | undefined>('id', 'name');
  return row ? { productId: Number(row.id), productName: row.name } : null;
}

async function settingsPage(
  ctx: AppContext,
  shell: ReturnType<typeof dashboardOf>['shell'],
  form: Parameters<typeof settingsView>[2],
): Promise<string> {
  const { store } = dashboardOf(ctx);
  const domains = await domainStates(ctx.deps.knex, store.id);
  return settingsView(
    shell,
    {
      name: store.name,
      currency: store.currency,
      embed_key: store.embed_key,
      allowed_origins: store.allowed_origins,
      domains,
      support_email: store.support_email ?? null,
    },
    form,
    `${ctx.deps.config.publicBaseUrl}/widget/v1.js`,
    await previewProduct(ctx.deps.knex, store.id),
  );
}
