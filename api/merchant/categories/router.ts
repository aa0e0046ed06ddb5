import type Router from '@koa/router';
import { listCategories } from '../../../shared/services/merchant/catalogue';
import { AppContext, AppMiddleware, input, respond } from '../../context';
import { validate } from '../../middleware/validate';
import { pageBody, query } from '../common';

export const listQuery = query({});

async function list(ctx: AppContext): Promise<void> {
  const { query: q } = input<unknown, { page: number; per_page: number }>(ctx);
  respond(ctx, pageBody(await listCategories(ctx.deps.knex, ctx.state.store!.id, q)));
}

/** GET /shawarma/categories: paginated, with product counts. */
export function registerCategoryRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/categories', ...guards, validate({ query: listQuery }), list);
}
