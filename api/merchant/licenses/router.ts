import Router from '@koa/router';
import type { Deps } from '../../../shared/deps';
import { merchantGuards } from '../../guards';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * Merchant control of licenses (/shawarma): the dashboard actions suspend and reactivate, plus listing,
 * detail with activations and activation resets. Its own router, beside the rest of the Merchant API.
 */
export function merchantLicensesRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/shawarma' });
  const guards = merchantGuards(deps);
  router.get(
    '/products/:productId/licenses',
    ...guards,
    validate({ params: schemas.productParams, query: schemas.listQuery }),
    handlers.list,
  );
  router.get('/licenses/:licenseId', ...guards, validate({ params: schemas.licenseParams }), handlers.show);
  router.post(
    '/licenses/:licenseId/suspend',
    ...guards,
    validate({ params: schemas.licenseParams }),
    handlers.suspend,
  );
  router.post(
    '/licenses/:licenseId/reactivate',
    ...guards,
    validate({ params: schemas.licenseParams }),
    handlers.reactivate,
  );
  router.post(
    '/licenses/:licenseId/reset-activations',
    ...guards,
    validate({ params: schemas.licenseParams, body: schemas.resetBody }),
    handlers.reset,
  );
  return router;
}
