import type Router from '@koa/router';
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
    customerAuth({ kind: 'embed', abilities: [EMBED_ABILITIES[1]] }),
    validate({ body: schemas.validateBody }),
    handlers.validateToken,
  );
}
