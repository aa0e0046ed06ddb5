import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { licenseGuards } from '../guards';
import { validate } from '../middleware/validate';
import { licenseAnswer } from './answer';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * The License Verification API (/verify): no credential header; 60 requests per minute per IP.
 * POST /verify answers through licenseAnswer (nonce, timestamp, encryption, signature), which wraps the
 * guards too, so a 429 or a 422 is signed like a result.
 */
export function licenseRouter(deps: Deps): Router {
  const router = new Router();
  const guards = licenseGuards(deps);
  router.post('/verify', licenseAnswer(), ...guards, validate({ body: schemas.verifyBody }), handlers.verify);
  router.get('/verify/public-key', ...guards, handlers.publicKey);
  return router;
}
