import { storeStatistics } from '../../../shared/services/merchant/statistics';
import { storeInfo } from '../../../shared/services/merchant/store';
import { AppContext, respond } from '../../context';

export async function show(ctx: AppContext): Promise<void> {
  respond(ctx, await storeInfo(ctx.deps.knex, ctx.state.store!));
}

export async function statistics(ctx: AppContext): Promise<void> {
  respond(ctx, await storeStatistics(ctx.deps.knex, ctx.state.store!));
}
