import { buyerLocale } from '../../pay/i18n';
import { localizedProductView } from '../../../shared/services/catalogue';
import Joi from 'joi';
import type { Product } from '../../../db/models';
import {
  listProducts,
  PRODUCT_SORTS,
  ProductSort,
  storefrontProduct,
} from '../../../shared/services/catalogue/storefront';
import { storefrontGuards } from '../../guards';
import { pagination } from '../../http/fields';
import { defineRoute } from '../../http/route';
import { schemaRef, storefrontOk } from '../../openapi/components';
import { pageOf, productCard, storefrontRefused } from '../responses';

interface ListQuery {
  page: number;
  per_page: number;
  category?: string;
  type?: Product['type'];
  search?: string;
  in_stock?: boolean;
  sort: ProductSort;
}

const listQuery = Joi.object<ListQuery, true>({
  ...pagination,
  category: Joi.string().trim().max(200).description('A category slug.'),
  type: Joi.string().valid('product', 'code', 'service', 'subscription'),
  search: Joi.string().trim().max(200).allow('').description('Part of the name, case-insensitive.'),
  in_stock: Joi.boolean()
    .truthy('1')
    .falsy('0')
    .description('true: only what can be bought now; false: only what cannot.'),
  sort: Joi.string()
    .valid(...PRODUCT_SORTS)
    .default('newest'),
});

export const storefrontProductRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/products',
    interface: 'storefront',
    operationId: 'storefrontListProducts',
    summary: 'List products',
    description:
      'The store’s active products, as the spec’s product object, paginated (`meta.total`). Filters: `category` ' +
      '(slug), `type`, `search` (name), `in_stock`. Sorts: `newest` (default), `price_asc`, `price_desc` (by the ' +
      'price charged), `name`.',
    guards: storefrontGuards,
    request: { query: listQuery },
    responses: { 200: storefrontOk('A page of products.', pageOf(productCard)) },
    handler: (ctx, { query }) =>
      ctx.deps.readKnex.run(ctx.state.store!.id, (knex) =>
        listProducts(
          knex,
          ctx.state.store!,
          { ...query, search: query.search || undefined },
          buyerLocale(ctx),
        ),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/api/products/{idOrSlug}',
    interface: 'storefront',
    operationId: 'storefrontGetProduct',
    summary: 'One product',
    description:
      'By id (digits) or slug: the product object plus description, custom fields, plans and the store’s ' +
      'payment methods. An inactive product or one of another store is not found.',
    guards: storefrontGuards,
    request: {
      params: Joi.object<{ idOrSlug: string }, true>({ idOrSlug: Joi.string().max(200).required() }),
    },
    responses: {
      200: storefrontOk('The product.', schemaRef('EmbedProduct')),
      404: storefrontRefused(
        'No such active product in this store.',
        'product_not_found',
        'Product not found',
      ),
    },
    handler: (ctx, { params }) =>
      ctx.deps.readKnex.run(ctx.state.store!.id, (knex) =>
        storefrontProduct(knex, ctx.state.store!, params.idOrSlug, ctx.deps.config).then((view) =>
          localizedProductView(view, buyerLocale(ctx)),
        ),
      ),
  }),
];
