import type Router from '@koa/router';
import type { Deps } from '../../../shared/deps';
import { EMBED_ABILITIES } from '../../../shared/services/tokens';
import type { AppMiddleware } from '../../context';
import { paymentStatusGuards } from '../../guards';
import { customerAuth } from '../../middleware/customer-auth';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * Payment initiation (authenticated and guest, behind the embed guards) and the public payment status,
 * which carries no embed key and has its own per-IP limit.
 */
export function registerPaymentRoutes(router: Router, guards: AppMiddleware[], deps: Deps): void {
  router.post(
    '/payment/initiate',
    ...guards,
    customerAuth({ kind: 'embed', abilities: [EMBED_ABILITIES[0]] }),
    validate({ body: schemas.initiateBody }),
    handlers.initiate,
  );
  router.post(
    '/guest/payment/initiate',
    ...guards,
    validate({ body: schemas.initiateBody }),
    handlers.guestInitiate,
  );
  router.get(
    '/payment/status/:checkoutUrl',
    ...paymentStatusGuards(deps),
    validate({ params: schemas.statusParams }),
    handlers.status,
  );
}
