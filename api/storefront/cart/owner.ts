import { ValidationError } from '../../../shared/errors';
import type { CartOwner } from '../../../shared/services/cart';
import type { AppContext, AppMiddleware } from '../../context';
import { customerAuth } from '../../middleware/customer-auth';

export const CART_ID_HEADER = 'X-Cart-Id';
const CART_ID = /^cart_[A-Za-z0-9_-]{16,100}$/;

/**
 * The cart's owner: a request with Authorization must carry a valid storefront token of this store (401
 * otherwise, an Embed token included) and uses the customer's cart; one without is an anonymous visitor
 * whose cart is named by X-Cart-Id (absent: no cart yet; malformed: 422).
 */
export function cartOwner(): AppMiddleware {
  const auth = customerAuth({ kind: 'storefront' });
  return async (ctx, next) => {
    if (ctx.get('Authorization')) return auth(ctx, next);
    const cartId = ctx.get(CART_ID_HEADER);
    if (cartId && !CART_ID.test(cartId)) {
      throw ValidationError.field(CART_ID_HEADER, `${CART_ID_HEADER} is not a cart id issued by this API.`);
    }
    await next();
  };
}

export function ownerOf(ctx: AppContext): CartOwner {
  return { customer: ctx.state.customer ?? null, cartId: ctx.get(CART_ID_HEADER) || null };
}
