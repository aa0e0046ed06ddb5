import type { Config } from '../../shared/config';
import { safeEqual } from '../../shared/crypto';
import { UnauthenticatedError } from '../../shared/errors';
import type { AppMiddleware } from '../context';

function parseBasic(header: string): { user: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * HTTP basic auth against DASHBOARD_USER / DASHBOARD_PASSWORD. With no credentials configured nothing
 * gets in (docs/operations.md). Both parts are always compared, in constant time, so the answer's timing
 * says nothing about which part was wrong.
 */
export function dashboardAuth(
  config: Pick<Config, 'dashboardUser' | 'dashboardPassword'>,
  realm: string,
): AppMiddleware {
  return async (ctx, next) => {
    const { dashboardUser, dashboardPassword } = config;
    const given = parseBasic(ctx.get('Authorization'));
    let allowed = false;
    if (dashboardUser && dashboardPassword && given) {
      const userOk = safeEqual(given.user, dashboardUser);
      const passwordOk = safeEqual(given.password, dashboardPassword);
      allowed = userOk && passwordOk;
    }
    if (!allowed) {
      ctx.set('WWW-Authenticate', `Basic realm="${realm}"`);
      throw new UnauthenticatedError('Authentication required');
    }
    await next();
  };
}
