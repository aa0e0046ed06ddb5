import { DomainError } from '../../shared/errors';
import type { AppContext, AppMiddleware } from '../context';

export class OriginNotAllowedError extends DomainError {
  constructor() {
    super('ORIGIN_NOT_ALLOWED', 'Origin not allowed');
  }
}

/**
 * scheme://host[:port], lower-case, default port dropped, no path or trailing slash; null when the value
 * is not an http(s) address (including the literal `null` that sandboxed frames send).
 */
export function normaliseOrigin(value: string): string | null {
  const trimmed = value.trim();
  if (!trimmed) return null;
  try {
    const url = new URL(trimmed);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** The caller's origin: the Origin header, else the origin part of the Referer. */
export function requestOrigin(ctx: AppContext): string | null {
  const origin = ctx.get('Origin');
  if (origin) return normaliseOrigin(origin);
  const referer = ctx.get('Referer');
  return referer ? normaliseOrigin(referer) : null;
}

export function originAllowed(allowed: readonly string[], origin: string | null): boolean {
  if (allowed.length === 0) return true;
  if (origin === null) return false;
  return allowed.some((entry) => normaliseOrigin(entry) === origin);
}

/**
 * Runs after embedKey(). When the store lists allowed origins, a request must come from one of them;
 * a request that names no origin at all is refused too, or leaving out both headers would bypass the
 * check. With no origins configured any caller is accepted (spec, Authentication 2).
 */
export function originCheck(): AppMiddleware {
  return async (ctx, next) => {
    const store = ctx.state.store;
    if (!store) throw new Error('originCheck() must run after embedKey()');
    if (!originAllowed(store.allowed_origins ?? [], requestOrigin(ctx))) throw new OriginNotAllowedError();
    await next();
  };
}
