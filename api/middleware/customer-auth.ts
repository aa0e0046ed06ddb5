import { touchCustomerToken } from '../../shared/services/tokens/touch';
import { ForbiddenError, UnauthenticatedError } from '../../shared/errors';
import {
  bearerToken,
  findCustomerToken,
  hasAbilities,
  STOREFRONT_ABILITIES,
  TokenKind,
} from '../../shared/services/tokens';
import type { AppMiddleware } from '../context';

export const UNAUTHENTICATED_MESSAGE = 'Unauthenticated.';
export const MISSING_ABILITY_MESSAGE = 'Token does not have the required ability';

/** last_used_at is a hint for operators, not an audit log: one write a minute per token is plenty. */
const TOUCH_INTERVAL_MS = 60_000;

export function needsTouch(lastUsedAt: Date | null, now = Date.now()): boolean {
  return lastUsedAt === null || now - new Date(lastUsedAt).getTime() >= TOUCH_INTERVAL_MS;
}

export interface CustomerAuthOptions {
  readonly kind: TokenKind;
  /** Abilities the route needs on top of the token being of `kind`. */
  readonly abilities?: readonly string[];
  /** What a token of another store earns instead of the default 401 (auth/validate: the spec's 403). */
  readonly foreignStoreError?: () => Error;
}

/**
 * Customer bearer tokens. A token works only in the store it was issued in (else 401, whatever the route).
 * Tokens are issued per interface and neither works on the other's endpoints:
 * the Storefront's customer guard does not know embed tokens (401, spec Authentication 3); an Embed route
 * receiving a token without the ability it needs, a storefront token included, answers 403.
 */
export function customerAuth(options: CustomerAuthOptions): AppMiddleware {
  const abilities = options.abilities ?? [];

  return async (ctx, next) => {
    const presented = bearerToken(ctx.get('Authorization'));
    const token = presented ? await findCustomerToken(ctx.deps.knex, presented) : null;
    if (!token) throw new UnauthenticatedError(UNAUTHENTICATED_MESSAGE);

    if (options.kind === 'storefront') {
      if (token.name !== 'storefront' || !hasAbilities(token, [...STOREFRONT_ABILITIES, ...abilities])) {
        throw new UnauthenticatedError(UNAUTHENTICATED_MESSAGE);
      }
    } else if (token.name !== 'embed' || !hasAbilities(token, abilities)) {
      throw new ForbiddenError(MISSING_ABILITY_MESSAGE).withCode('token_ability_missing');
    }

    // A token is valid only in its own store, on every route: the store the request
    // names (embed key, Host) must be the one the token was issued in.
    const store = ctx.state.store;
    if (!store) throw new Error('customerAuth must run after the store is resolved (embed key, Host)');
    if (token.store_id !== store.id) {
      throw options.foreignStoreError?.() ?? new UnauthenticatedError(UNAUTHENTICATED_MESSAGE);
    }

    if (needsTouch(token.last_used_at)) {
      await touchCustomerToken(ctx.deps.knex, token.id);
    }
    ctx.state.customer = token.customer;
    ctx.state.customerToken = token;
    await next();
  };
}
