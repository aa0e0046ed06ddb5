import { listProducts, ProductFilters, productDetail } from '../../../shared/services/merchant/catalogue';
import { AppContext, input, respond } from '../../context';
import { pageBody } from '../common';

export async function list(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, ProductFilters & { page: number; per_page: number }>(ctx);
  const { page, per_page, ...filters } = query;
  respond(ctx, pageBody(await listProducts(ctx.deps.knex, ctx.state.store!, filters, { page, per_page })));
}

export async function show(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, { id: number }>(ctx);
  respond(ctx, await productDetail(ctx.deps.knex, ctx.state.store!, params.id));
}
