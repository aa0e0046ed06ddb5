import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** POST /api/embed/apply-coupon: no customer authentication. `guards` = embed key chain. */
export function registerCouponRoutes(router: Router, guards: AppMiddleware[]): void {
  router.post('/apply-coupon', ...guards, validate({ body: schemas.applyCouponBody }), handlers.apply);
}
