import { listReviews, recentReviews, reviewStats } from '../../../shared/services/reviews';
import { AppContext, input, respond } from '../../context';
import type { ListQuery, RecentQuery, StatsQuery } from './schemas';

export async function recent(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, RecentQuery>(ctx);
  respond(ctx, { items: await recentReviews(ctx.deps.knex, ctx.state.store!, query) });
}

export async function list(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, ListQuery>(ctx);
  respond(ctx, await listReviews(ctx.deps.knex, ctx.state.store!, query));
}

export async function stats(ctx: AppContext): Promise<void> {
  const { query } = input<unknown, StatsQuery>(ctx);
  respond(ctx, await reviewStats(ctx.deps.knex, ctx.state.store!, query));
}
