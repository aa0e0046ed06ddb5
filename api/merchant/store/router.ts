import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** GET /shawarma/store and GET /shawarma/store/statics. */
export function registerStoreRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/store', ...guards, validate({ query: schemas.noQuery }), handlers.show);
  router.get('/store/statics', ...guards, validate({ query: schemas.noQuery }), handlers.statistics);
}
