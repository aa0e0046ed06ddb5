import Joi from 'joi';
import { listProducts, ProductFilters, productDetail } from '../../../shared/services/merchant/catalogue';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { id, idParams, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import { merchantOk, merchantRefused, pageOf, ProductDetail, ProductSummary } from '../responses';

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
      return pageBody(await listProducts(ctx.deps.knex, ctx.state.store!, filters, { page, per_page }));
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
      404: merchantRefused('No such product in this store.', 'Product not found'),
    },
    handler: (ctx, { params }) => productDetail(ctx.deps, ctx.state.store!, params.id),
  }),
];
