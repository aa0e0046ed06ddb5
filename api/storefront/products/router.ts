import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** GET /api/products (paginated, filtered, sorted) and GET /api/products/{id or slug}. */
export function registerProductRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/products', ...guards, validate({ query: schemas.listQuery }), handlers.list);
  router.get('/products/:idOrSlug', ...guards, validate({ params: schemas.productParams }), handlers.show);
}
