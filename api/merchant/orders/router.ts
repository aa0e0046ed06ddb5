import type Router from '@koa/router';
import type { AppMiddleware } from '../../context';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * Orders: list, create (idempotent), detail, status change, and the files buyers uploaded in custom
 * fields. Another store's order is 404.
 */
export function registerOrderRoutes(router: Router, guards: AppMiddleware[]): void {
  router.get('/orders', ...guards, validate({ query: schemas.listQuery }), handlers.list);
  router.post(
    '/orders',
    ...guards,
    validate({ body: schemas.createBody }),
    schemas.idempotencyKey(),
    handlers.create,
  );
  router.get('/orders/:id', ...guards, validate({ params: schemas.idParams }), handlers.show);
  router.put(
    '/orders/:id',
    ...guards,
    validate({ params: schemas.idParams, body: schemas.statusBody }),
    handlers.updateStatus,
  );
  router.get(
    '/orders/:id/uploads/:index',
    ...guards,
    validate({ params: schemas.uploadParams }),
    handlers.upload,
  );
}
