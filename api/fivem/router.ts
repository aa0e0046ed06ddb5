import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Deps } from '../../shared/deps';
import { LIMITS } from '../../shared/rate-limits';
import type { AppMiddleware } from '../context';
import { byClientIp, rateLimit } from '../middleware/rate-limit';
import { validate } from '../middleware/validate';
import { fivemSecret, fivemServerOf } from './auth';
import * as handlers from './handlers';
import * as schemas from './schemas';

/**
 * The app-wide body parser reads POST, PUT and PATCH bodies only; the acknowledgement is a DELETE with a
 * JSON body, so it is parsed here (JSON only, small).
 */
function deleteBody(): AppMiddleware {
  return koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: '64kb',
    parsedMethods: ['DELETE'] as never,
    onError: (err) => {
      throw Object.assign(err, { status: (err as { status?: number }).status ?? 400, expose: true });
    },
  }) as unknown as AppMiddleware;
}

/**
 * The FiveM API (/api/fivem), called by the game-server resource (integrations/fivem). Per-IP limit
 * before the secret is looked up, then per game server.
 */
export function fivemRouter(_deps: Deps): Router {
  const router = new Router({ prefix: '/api/fivem' });
  const guards: AppMiddleware[] = [
    rateLimit([{ def: LIMITS.fivemPerIp, key: byClientIp }]),
    fivemSecret(),
    rateLimit([{ def: LIMITS.fivemPerServer, key: (ctx) => String(fivemServerOf(ctx).id) }]),
  ];
  router.get('/queue', ...guards, handlers.queue);
  router.get(
    '/queue/online/:playerId',
    ...guards,
    validate({ params: schemas.playerParams }),
    handlers.online,
  );
  router.delete(
    '/queue',
    ...guards,
    deleteBody(),
    validate({ body: schemas.acknowledgeBody }),
    handlers.acknowledge,
  );
  return router;
}
