import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** GET /api/embed/product/{productId}: what a checkout interface shows. `guards` = embed key chain. */
export function registerProductRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/product/:productId', ...guards, validate({ params: schemas.productParams }), handlers.show);
}
