import { listCategories } from '../../../shared/services/merchant/catalogue';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { listQuery, PAGINATION_NOTE, pageBody } from '../common';
import { CategorySummary, merchantOk, pageOf } from '../responses';

export const merchantCategoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/categories',
    interface: 'merchant',
    operationId: 'merchantListCategories',
    summary: 'List categories (paginated)',
    description: `With the number of products in each. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { query: listQuery<object>({}) },
    responses: { 200: merchantOk('One page of categories.', pageOf(CategorySummary)) },
    handler: async (ctx, { query }) =>
      pageBody(await listCategories(ctx.deps.knex, ctx.state.store!.id, query)),
  }),
];
