import { listProducts, storefrontProduct } from '../../../shared/services/catalog/storefront';
import { AppContext, input, respond } from '../../context';
import type { ListQuery, ProductParams } from './schemas';

export async function list(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, ListQuery>(ctx);
  respond(
    ctx,
    await listProducts(ctx.deps.knex, ctx.state.store!, { ...query, search: query.search || undefined }),
  );
}

export async function show(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, ProductParams>(ctx);
  respond(ctx, await storefrontProduct(ctx.deps.knex, ctx.state.store!, params.idOrSlug));
}
