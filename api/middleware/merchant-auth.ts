import { ForbiddenError, UnauthenticatedError } from '../../shared/errors';
import { bearerToken, findMerchantToken } from '../../shared/services/tokens';
import { touchMerchantToken } from '../../shared/services/tokens/touch';
import type { AppMiddleware } from '../context';
import { needsTouch, UNAUTHENTICATED_MESSAGE } from './customer-auth';

export const PAID_PLAN_MESSAGE = 'The Merchant API requires a paid plan.';

/** Merchant bearer token: resolves the store it belongs to; the Merchant API is for paid plans only. */
export function merchantAuth(): AppMiddleware {
  return async (ctx, next) => {
    const presented = bearerToken(ctx.get('Authorization'));
    const token = presented ? await findMerchantToken(ctx.deps.knex, presented) : null;
    if (!token) throw new UnauthenticatedError(UNAUTHENTICATED_MESSAGE);
    if (token.store.plan !== 'paid')
      throw new ForbiddenError(PAID_PLAN_MESSAGE).withCode('merchant_plan_required');

    if (needsTouch(token.last_used_at)) {
      await touchMerchantToken(ctx.deps.knex, token.id);
    }
    ctx.state.store = token.store;
    ctx.state.merchantToken = token;
    await next();
  };
}
