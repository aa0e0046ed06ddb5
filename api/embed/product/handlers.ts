import { productView } from '../../../shared/services/catalog';
import { AppContext, input, respond } from '../../context';
import type { ProductParams } from './schemas';

export async function show(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, ProductParams>(ctx);
  respond(ctx, await productView(ctx.deps.knex, ctx.state.store!, params.productId));
}
