import type Router from '@koa/router';
import { ForbiddenError } from '../../../shared/errors';
import { TOKEN_NOT_FOR_PRODUCT } from '../../../shared/services/customers/session';
import { EMBED_ABILITIES } from '../../../shared/services/tokens';
import { customerAuth } from '../../middleware/customer-auth';
import { validate } from '../../middleware/validate';
import type { AppMiddleware } from '../../context';
import * as handlers from './handlers';
import * as schemas from './schemas';

/** POST /api/embed/auth/*: phone OTP sign-in for the embedded checkout. `guards` = embed key chain. */
export function registerAuthRoutes(router: Router, guards: AppMiddleware[]): void {
  router.post('/auth/start', ...guards, validate({ body: schemas.startBody }), handlers.start);
  router.post('/auth/resend', ...guards, validate({ body: schemas.resendBody }), handlers.resend);
  router.post('/auth/verify', ...guards, validate({ body: schemas.verifyBody }), handlers.verify);
  router.post('/auth/complete', ...guards, validate({ body: schemas.completeBody }), handlers.complete);
  router.post(
    '/auth/validate',
    ...guards,
    customerAuth({
      kind: 'embed',
      abilities: [EMBED_ABILITIES[1]],
      // Spec, Embed errors by endpoint: "auth/validate 403 Token not valid for this product (other store)".
      foreignStoreError: () => new ForbiddenError(TOKEN_NOT_FOR_PRODUCT),
    }),
    validate({ body: schemas.validateBody }),
    handlers.validateToken,
  );
}
