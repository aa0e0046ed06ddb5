import type { FivemServer, Store } from '../../db/models';
import { UnauthenticatedError } from '../../shared/errors';
import { authenticateFivemSecret } from '../../shared/services/fivem';
import type { AppContext, AppMiddleware } from '../context';

/** The operator contract (docs/operations.md): the game server sends the store's FiveM secret in this header. */
export const FIVEM_SECRET_HEADER = 'X-FiveM-Secret';

/**
 * The FiveM guard: the game server whose secret is in X-FiveM-Secret (hashed, compared in constant time,
 * not revoked) and its store. A missing or wrong secret is 401; a merchant token or an embed key is just
 * a wrong secret here.
 */
export function fivemSecret(): AppMiddleware {
  return async (ctx, next) => {
    const presented = ctx.get(FIVEM_SECRET_HEADER).trim();
    if (!presented) throw new UnauthenticatedError('The FiveM secret is required (X-FiveM-Secret)');
    const server = await authenticateFivemSecret(ctx.deps.knex, presented);
    if (!server) throw new UnauthenticatedError('Invalid FiveM secret');
    ctx.state.store = server.store;
    ctx.state.fivemServer = server;
    await next();
  };
}

/** The authenticated game server (set by fivemSecret). */
export function fivemServerOf(ctx: AppContext): FivemServer & { store: Store } {
  return ctx.state.fivemServer as FivemServer & { store: Store };
}
