import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** Public reviews: recent (4 stars and up), the paginated list, and statistics. */
export function registerReviewRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/reviews/recent', ...guards, validate({ query: schemas.recentQuery }), handlers.recent);
  router.get('/reviews/stats', ...guards, validate({ query: schemas.statsQuery }), handlers.stats);
  router.get('/reviews', ...guards, validate({ query: schemas.listQuery }), handlers.list);
}
