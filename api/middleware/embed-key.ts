import { cachedStore } from '../../shared/services/catalogue/store-cache';
import { storeByEmbedKey } from '../../shared/services/stores/lookup';
import { UnauthenticatedError } from '../../shared/errors';
import type { AppContext, AppMiddleware } from '../context';

export const EMBED_KEY_HEADER = 'X-Embed-Key';
export const EMBED_KEY_QUERY = 'embed_key';

/** Longer than any key the platform issues; longer values are refused without a query. */
const MAX_KEY_LENGTH = 200;

function presentedKey(ctx: AppContext): string | null {
  const header = ctx.get(EMBED_KEY_HEADER).trim();
  if (header) return header;
  const query = ctx.query[EMBED_KEY_QUERY];
  const value = (Array.isArray(query) ? query[0] : query)?.trim();
  return value ? value : null;
}

/**
 * Finds the store by its public embed key (header X-Embed-Key, else query parameter embed_key, which
 * lets a plain <img>/<script> request or a redirect carry it) and puts it on ctx.state.store.
 */
export function embedKey(): AppMiddleware {
  return async (ctx, next) => {
    const key = presentedKey(ctx);
    if (!key) throw new UnauthenticatedError('Embed key is required').withCode('embed_key_required');
    const store =
      key.length <= MAX_KEY_LENGTH
        ? await cachedStore(ctx.deps, `key:${key}`, (knex) => storeByEmbedKey(knex, key))
        : undefined;
    if (!store) throw new UnauthenticatedError('Invalid embed key').withCode('embed_key_invalid');
    ctx.state.store = store;
    await next();
  };
}
