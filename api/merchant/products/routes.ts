import Joi from 'joi';
import { listProducts, ProductFilters, productDetail } from '../../../shared/services/catalogue/read';
import { addCodes, listCodes, withdrawCodes } from '../../../shared/services/catalogue/codes';
import {
  archiveProduct,
  createProduct,
  updateProduct,
} from '../../../shared/services/catalogue/product-writes';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, id, idParams, ifMatchVersion, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import {
  CodeList,
  CodesAdded,
  CodesWithdrawn,
  merchantOk,
  merchantRefused,
  pageOf,
  ProductArchived,
  ProductImage,
  ProductDetail,
  ProductSummary,
} from '../responses';
import { formBody, uploadsOf } from '../../embed/checkout/multipart';
import { setProductImage } from '../../../shared/services/catalogue/product-image';
import * as schemas from './schemas';
import { csvCodesBody } from './writes';

const PRODUCT_KEYS =
  'Keys (the fixture format of the operator contract, docs/operations.md): `name`, `slug` (unique in the ' +
  'store), `type` (`product`, `code`, `service`, `subscription`), `description`, `image_url`, `price` and ' +
  '`sale_price` (decimal strings; the sale price, when set, is what is charged and may not exceed the ' +
  'price), `active`, `stock` (null: unlimited; a code product counts its keys instead), `categories` ' +
  '(category ids), `fields` (custom fields in order: `{type, label, required, options}`; a select ' +
  'option’s `price` is an add-on charged on top), `plans` (`{id?, name, price, duration, active}`: ' +
  'subscription or license plans; a plan named by `id` keeps its id, a stored plan left out is ' +
  'deactivated), `license` (`{prefix, lock_type, max_activations, encrypt}` or null), `fivem_commands` ' +
  '(`{command, require_online, run_on: purchase|refund, delay_seconds, inventory_slots}`; `refund` ' +
  'templates run when an order is cancelled or refunded).';

const EXAMPLE = {
  name: 'VIP rank',
  slug: 'vip-rank',
  type: 'product',
  price: '50.00',
  sale_price: '40.00',
  stock: null,
  categories: [3],
  fields: [{ type: 'text', label: 'Player id', required: true }],
  fivem_commands: [
    { command: 'add_vip {player}', require_online: true },
    { command: 'remove_vip {player}', run_on: 'refund' },
  ],
};

const notFound = merchantRefused('not_found', 'No such product in this store.', 'Product not found');

const productsQuery = listQuery<ProductFilters>({
  type: Joi.string().valid('product', 'code', 'service', 'subscription'),
  active: Joi.boolean().truthy('1').falsy('0'),
  category_id: id(),
});

export const merchantProductRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/products',
    interface: 'merchant',
    operationId: 'merchantListProducts',
    summary: 'List products (paginated)',
    description:
      'Filters `type`, `active`, `category_id`. Each with prices (decimal strings), stock (`quantity` null = ' +
      'unlimited; a code product counts its keys left) and `sales_count` (units in paid orders). ' +
      PAGINATION_NOTE,
    guards: merchantGuards,
    request: { query: productsQuery },
    responses: { 200: merchantOk('One page of products.', pageOf(ProductSummary)) },
    handler: async (ctx, { query }) => {
      const { page, per_page, ...filters } = query;
      const store = ctx.state.store!;
      return pageBody(
        await ctx.deps.readKnex.run(store.id, (knex) =>
          listProducts(knex, store, filters, { page, per_page }),
        ),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/products/{id}',
    interface: 'merchant',
    operationId: 'merchantGetProduct',
    summary: 'Product details',
    description: 'Custom fields, plans, license settings, FiveM commands and keys left.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('The product.', ProductDetail),
      404: merchantRefused('not_found', 'No such product in this store.', 'Product not found'),
    },
    handler: async (ctx, { params }) => {
      const product = await productDetail(ctx.deps, ctx.state.store!, params.id);
      return reply(product, { headers: { ETag: `"${String(product.version)}"` } });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/products',
    interface: 'merchant',
    operationId: 'merchantCreateProduct',
    summary: 'Create a product',
    description:
      `${PRODUCT_KEYS} \`codes\`: the first key stock (at most 10,000; a \`code\` product sells one per unit). On sale through ` +
      'every interface as soon as this answers. With `license.encrypt` a response-encryption key is made ' +
      'and shown in `license.encryption_key`. Bad keys: 422 naming each one; a slug already used: 422 ' +
      'naming `slug`.',
    guards: merchantGuards,
    request: { body: schemas.createBody, example: EXAMPLE },
    responses: { 201: merchantOk('The product.', ProductDetail) },
    handler: async (ctx, { body }) => {
      const product = await createProduct(ctx.deps, actorOf(ctx), ctx.state.store!, body);
      return reply(product, {
        status: 201,
        message: 'Product created',
        headers: { ETag: `"${product.version}"` },
      });
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/products/{id}',
    interface: 'merchant',
    operationId: 'merchantUpdateProduct',
    summary: 'Update a product',
    description:
      `Any of the creation keys except \`codes\` (key stock has its own routes); a key left out keeps its ` +
      'value, and a list given (categories, fields, plans, FiveM commands) replaces the stored one. ' +
      'Concurrent updates never lose a write: each merges into the row as stored when it runs, so updates ' +
      'of different keys all land and, for one key, the last to commit wins. To refuse a stale write ' +
      'instead, send `If-Match: "<version>"` (the `version` of the product you read, also its `ETag`): ' +
      'a product changed since is a 409 and nothing is written. Price and stock changes are seen by the ' +
      'Embed and Storefront APIs at once.',
    guards: merchantGuards,
    request: { params: idParams, body: schemas.patchBody, example: { sale_price: '35.00' } },
    responses: {
      200: merchantOk('The product as stored now.', ProductDetail),
      404: notFound,
      409: merchantRefused(
        'conflict',
        '`If-Match` names an older version.',
        'The product changed since version 3 (it is at version 4): read it again and retry',
      ),
    },
    handler: async (ctx, { params, body }) => {
      const product = await updateProduct(
        ctx.deps,
        actorOf(ctx),
        ctx.state.store!,
        params.id,
        body,
        ifMatchVersion(ctx),
      );
      return reply(product, { message: 'Product updated', headers: { ETag: `"${product.version}"` } });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/products/{id}',
    interface: 'merchant',
    operationId: 'merchantDeleteProduct',
    summary: 'Take a product off sale',
    description:
      'For good: the Embed and Storefront APIs answer 404 for it from now on and the product list leaves ' +
      'it out, while past orders, licenses and subscriptions keep it (`GET /shawarma/products/{id}` still ' +
      'shows it, with `archived_at`). To pause sales instead, PATCH `active: false`.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('Taken off sale.', ProductArchived), 404: notFound },
    handler: async (ctx, { params }) =>
      reply(await archiveProduct(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.id), {
        message: 'Product taken off sale',
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/products/{id}/image',
    interface: 'merchant',
    operationId: 'merchantUploadProductImage',
    summary: 'Upload the product image',
    description:
      'multipart/form-data with the file in the part named `image`: a JPG, PNG or GIF of at most 10 MB, ' +
      'judged by its bytes as buyers’ image uploads are (the extension must agree with the content). The ' +
      'product’s `image_url` becomes the image’s public address (`/media/products/...`).',
    guards: (deps) => [...merchantGuards(deps), formBody()],
    request: {
      params: idParams,
      body: Joi.object<Record<string, never>, true>({}).unknown(true),
      bodyTypes: ['multipart/form-data'],
    },
    responses: {
      200: merchantOk('The new image address.', ProductImage),
      404: notFound,
    },
    handler: async (ctx, { params }) => {
      const upload = uploadsOf(ctx).find((u) => u.partName === 'image');
      return reply(await setProductImage(ctx.deps, actorOf(ctx), params.id, upload), {
        message: 'Image uploaded',
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/products/{id}/codes',
    interface: 'merchant',
    operationId: 'merchantAddCodes',
    summary: 'Add key stock to a code product',
    description:
      'JSON `{"codes": [...]}` (1 to 10,000 keys of up to 500 characters), or the keys as a CSV file ' +
      '(`Content-Type: text/csv`: one key per line in the first column, an optional `code` header; at most ' +
      '6 MB). Keys the product already has (sold ones included), and repeats within the request, are ' +
      'skipped: `added` and `skipped` count them, `skipped_codes` lists up to 1,000 of them, `available` is ' +
      'the stock after. Safe to send again.',
    guards: (deps) => [...merchantGuards(deps), csvCodesBody()],
    request: {
      params: idParams,
      body: schemas.codesBody,
      bodyTypes: ['application/json', 'text/csv'],
      example: { codes: ['KEY-0001', 'KEY-0002'] },
    },
    responses: {
      200: merchantOk('Added.', CodesAdded),
      404: notFound,
    },
    handler: async (ctx, { params, body }) =>
      reply(await addCodes(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.id, body.codes), {
        message: 'Codes added',
      }),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/products/{id}/codes',
    interface: 'merchant',
    operationId: 'merchantListCodes',
    summary: 'List unsold keys',
    description:
      'The keys still for sale (`available`), with the counts of keys available, held by unpaid checkouts ' +
      `(\`reserved\`) and sold. Sold keys are never listed: they belong to their buyers. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { params: idParams, query: listQuery<object>({}) },
    responses: { 200: merchantOk('One page of unsold keys.', CodeList), 404: notFound },
    handler: async (ctx, { params, query }) => {
      const listed = await listCodes(ctx.deps.knex, ctx.state.store!.id, params.id, query);
      return { ...pageBody(listed), counts: listed.counts };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/products/{id}/codes/withdraw',
    interface: 'merchant',
    operationId: 'merchantWithdrawCodes',
    summary: 'Withdraw unsold keys',
    description:
      '`{"codes": [...]}` withdraws those keys, `{"all": true}` every available one. Sold keys, and keys ' +
      'held by an unpaid checkout, stay; `not_withdrawn` counts the named keys that were not available.',
    guards: merchantGuards,
    request: { params: idParams, body: schemas.withdrawBody, example: { codes: ['KEY-0002'] } },
    responses: { 200: merchantOk('Withdrawn.', CodesWithdrawn), 404: notFound },
    handler: async (ctx, { params, body }) =>
      reply(await withdrawCodes(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.id, body), {
        message: 'Codes withdrawn',
      }),
  }),
];
