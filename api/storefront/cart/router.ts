import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import { cartOwner } from './owner';
import * as schemas from './schemas';

/**
 * The cart of a signed-in customer (Authorization) or of an anonymous visitor (X-Cart-Id). Every answer
 * is the whole cart, priced again.
 */
export function registerCartRoutes(router: Router, guards: AppMiddleware[]): void {
  const owned = [...guards, cartOwner()];
  router.get('/cart', ...owned, handlers.show);
  router.post('/cart/add', ...owned, validate({ body: schemas.addBody }), handlers.add);
  router.patch(
    '/cart/items/:itemId',
    ...owned,
    validate({ params: schemas.itemParams, body: schemas.quantityBody }),
    handlers.update,
  );
  router.delete('/cart/items/:itemId', ...owned, validate({ params: schemas.itemParams }), handlers.remove);
  router.post('/cart/coupon', ...owned, validate({ body: schemas.couponBody }), handlers.applyCoupon);
  router.delete('/cart/coupon', ...owned, handlers.removeCoupon);
  router.delete('/cart', ...owned, handlers.clear);
}
