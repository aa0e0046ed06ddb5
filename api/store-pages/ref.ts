import Joi from 'joi';
import type { Store } from '../../db/models';
import { findCreatorByCode } from '../../shared/services/growth/creators';
import type { AppContext } from '../context';
import { refFromRequest } from '../growth/ref';

/**
 * `?ref=CODE` on the store pages (docs/growth.md, "Creator codes"; docs/store-pages.md): the code is kept
 * for the browser session in a first-party cookie limited to the store's pages (api/growth/ref.ts), and
 * the store page checkout passes it as `creator_code`, so the creator is credited for what the visitor buys.
 */

export const refQuery = Joi.string()
  .max(200)
  .allow('')
  .description(
    'A creator’s code (docs/growth.md): kept for the browser session and credited on this store’s checkout. ' +
      'A code that is malformed or names no active creator is ignored.',
  );

/** The path the ref cookie is kept under: the store's pages (`/s/{slug}`). */
const refPath = (store: Store): string => `/s/${store.slug}`;

/**
 * Keeps this request's `?ref=` (after the page is sent): the answer then is private, never a CDN's copy for
 * everybody (it carries this browser's cookie).
 */
export function keepRef(ctx: AppContext, store: Store): void {
  if (typeof ctx.query.ref !== 'string' || ctx.query.ref === '') return;
  if (refFromRequest(ctx, refPath(store)) === undefined) return;
  ctx.set('Cache-Control', 'private, no-store');
  ctx.remove('ETag');
}

/**
 * The creator code the checkout credits: the form's own `creator_code` when it has one, else the code the
 * visitor arrived with (`?ref=` on this request or the session cookie) when it names an active creator of
 * this store; a stale or unknown kept code is dropped rather than refusing the buyer's checkout.
 */
export async function creatorCodeFor(
  ctx: AppContext,
  store: Store,
  given: string | undefined,
): Promise<string | undefined> {
  if (given) return given;
  const kept = refFromRequest(ctx, refPath(store));
  if (!kept) return undefined;
  return (await findCreatorByCode(ctx.deps.knex, store.id, kept)) ? kept : undefined;
}
