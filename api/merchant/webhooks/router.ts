import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import { idParams } from '../common';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** POST/GET/DELETE /shawarma/webhooks: the store's endpoints for signed event notifications. */
export function registerWebhookRoutes(router: Router, guards: AppMiddleware[]): void {
  router.post('/webhooks', ...guards, validate({ body: schemas.createBody }), handlers.create);
  router.get('/webhooks', ...guards, validate({ query: schemas.listQuery }), handlers.list);
  router.delete('/webhooks/:id', ...guards, validate({ params: idParams }), handlers.remove);
}
