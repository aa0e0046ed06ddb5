import { applyCoupon } from '../../../shared/services/coupons';
import { AppContext, input, respond } from '../../context';
import type { ApplyCouponBody } from './schemas';

export async function apply(ctx: AppContext): Promise<void> {
  const { body } = input<ApplyCouponBody>(ctx);
  respond(ctx, await applyCoupon(ctx.deps.knex, ctx.state.store!, body));
}
