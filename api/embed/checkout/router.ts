import type Router from '@koa/router';
import { EMBED_ABILITIES } from '../../../shared/services/tokens';
import type { AppMiddleware } from '../../context';
import { customerAuth } from '../../middleware/customer-auth';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import { formBody } from './multipart';
import * as schemas from './schemas';

/**
 * POST /api/embed/checkout (customer token with embed:checkout, of this store) and
 * POST /api/embed/guest/checkout. Both take JSON or multipart/form-data; the multipart body is read only
 * after the guards have passed, so a refused caller uploads nothing.
 */
export function registerCheckoutRoutes(router: Router, guards: AppMiddleware[]): void {
  router.post(
    '/checkout',
    ...guards,
    customerAuth({ kind: 'embed', abilities: [EMBED_ABILITIES[0]] }),
    formBody(),
    validate({ body: schemas.checkoutBody }),
    handlers.checkout,
  );
  router.post(
    '/guest/checkout',
    ...guards,
    formBody(),
    validate({ body: schemas.guestCheckoutBody }),
    handlers.guestCheckout,
  );
}
