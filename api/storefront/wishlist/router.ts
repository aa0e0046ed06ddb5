import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { customerAuth } from '../../middleware/customer-auth';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * The six wishlist endpoints of the spec, each behind a storefront customer token of this store (401
 * otherwise, an Embed token included). `/wishlist/clear` and `/wishlist/count` are declared before the
 * `{productId}` routes so they are never read as a product id.
 */
export function registerWishlistRoutes(router: Router, guards: AppMiddleware[]): void {
  const auth = [...guards, customerAuth({ kind: 'storefront' })];
  router.get('/wishlist', ...auth, handlers.list);
  router.post('/wishlist', ...auth, validate({ body: schemas.addBody }), handlers.add);
  router.get('/wishlist/count', ...auth, handlers.count);
  router.delete('/wishlist/clear', ...auth, handlers.clear);
  router.get(
    '/wishlist/check/:productId',
    ...auth,
    validate({ params: schemas.productParams }),
    handlers.check,
  );
  router.delete('/wishlist/:productId', ...auth, handlers.remove);
}
