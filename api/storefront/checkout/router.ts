import type Router from '@koa/router';
import type { AppContext, AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import { cartOwner } from '../cart/owner';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** A signed-in customer sends only an optional note; an anonymous visitor also the buyer's details. */
function checkoutBody(): AppMiddleware {
  const member = validate({ body: schemas.customerBody });
  const guest = validate({ body: schemas.guestBody });
  return (ctx: AppContext, next) => (ctx.state.customer ? member(ctx, next) : guest(ctx, next));
}

/**
 * POST /api/checkout (the cart of the token's customer or of X-Cart-Id), then paying it exactly as with
 * the Embed API: POST /api/payment/initiate, the hosted payment_url, GET /api/payment/status/{checkoutUrl}.
 */
export function registerCheckoutRoutes(router: Router, guards: AppMiddleware[]): void {
  const owned = [...guards, cartOwner()];
  router.post('/checkout', ...owned, checkoutBody(), handlers.checkout);
  router.post('/payment/initiate', ...owned, validate({ body: schemas.initiateBody }), handlers.initiate);
  router.get(
    '/payment/status/:checkoutUrl',
    ...guards,
    validate({ params: schemas.statusParams }),
    handlers.status,
  );
}
