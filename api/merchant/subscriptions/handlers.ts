import {
  listSubscriptions,
  SubscriptionFilters,
  subscriptionDetail,
} from '../../../shared/services/merchant/subscriptions';
import { AppContext, input, respond } from '../../context';
import { pageBody } from '../common';

export async function list(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, SubscriptionFilters & { page: number; per_page: number }>(ctx);
  const { page, per_page, ...filters } = query;
  respond(ctx, pageBody(await listSubscriptions(ctx.deps.knex, ctx.state.store!.id, filters, { page, per_page })));
}

export async function show(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, { id: number }>(ctx);
  respond(ctx, await subscriptionDetail(ctx.deps.knex, ctx.state.store!.id, params.id));
}
