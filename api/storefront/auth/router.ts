import type Router from '@koa/router';
import { LIMITS } from '../../../shared/rate-limits';
import type { AppMiddleware } from '../../context';
import { byClientIp, rateLimit } from '../../middleware/rate-limit';
import { validate } from '../../middleware/validate';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * POST /api/auth/*: storefront sign-in on the same OTP engine as the Embed API, issuing storefront
 * customer tokens. /auth/complete registers a new phone, as in the Embed API.
 */
export function registerAuthRoutes(router: Router, guards: AppMiddleware[]): void {
  router.post('/auth/start', ...guards, validate({ body: schemas.startBody }), handlers.start);
  router.post('/auth/resend', ...guards, validate({ body: schemas.resendBody }), handlers.resend);
  router.post(
    '/auth/verify',
    ...guards,
    rateLimit([{ def: LIMITS.storefrontVerifyPerIp, key: byClientIp }]),
    validate({ body: schemas.verifyBody }),
    handlers.verify,
  );
  router.post('/auth/complete', ...guards, validate({ body: schemas.completeBody }), handlers.complete);
}
