import { CustomerAccessToken } from '../../db/models';
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
  /**
   * Refuse (401) a token issued for another store than ctx.state.store. Defaults to true for the
   * Storefront; Embed routes answer that case themselves (auth/validate: 403).
   */
  readonly sameStore?: boolean;
}

/**
 * Customer bearer tokens. Tokens are issued per interface and neither works on the other's endpoints:
 * the Storefront's customer guard does not know embed tokens (401, spec Authentication 3); an Embed route
 * receiving a token without the ability it needs, a storefront token included, answers 403.
 */
export function customerAuth(options: CustomerAuthOptions): AppMiddleware {
  const abilities = options.abilities ?? [];
  const sameStore = options.sameStore ?? options.kind === 'storefront';

  return async (ctx, next) => {
    const presented = bearerToken(ctx.get('Authorization'));
    const token = presented ? await findCustomerToken(ctx.deps.knex, presented) : null;
    if (!token) throw new UnauthenticatedError(UNAUTHENTICATED_MESSAGE);

    if (options.kind === 'storefront') {
      if (token.name !== 'storefront' || !hasAbilities(token, [...STOREFRONT_ABILITIES, ...abilities])) {
        throw new UnauthenticatedError(UNAUTHENTICATED_MESSAGE);
      }
    } else if (token.name !== 'embed' || !hasAbilities(token, abilities)) {
      throw new ForbiddenError(MISSING_ABILITY_MESSAGE);
    }

    if (sameStore) {
      const store = ctx.state.store;
      if (!store) throw new Error('customerAuth({ sameStore: true }) must run after the store is resolved');
      if (token.store_id !== store.id) throw new UnauthenticatedError(UNAUTHENTICATED_MESSAGE);
    }

    if (needsTouch(token.last_used_at)) {
      await CustomerAccessToken.query(ctx.deps.knex)
        .patch({ last_used_at: new Date() })
        .where('id', token.id);
    }
    ctx.state.customer = token.customer;
    ctx.state.customerToken = token;
    await next();
  };
}
