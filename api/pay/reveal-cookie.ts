import { claimRevealCookie, revealCookieName } from '../../shared/services/reveal/reveal';
import type { AppContext } from '../context';

/**
 * Binds an unpaid checkout to this browser (shared/services/reveal claimRevealCookie) and sets the cookie
 * the hosted payment page reads back to show the goods once paid: Path=/pay/, HttpOnly, SameSite=Lax (the
 * provider sends the buyer back with a top-level GET from its own site), 2 hours, Secure over HTTPS. Does
 * nothing when the checkout is bound already or paid. Answers whether this browser got the cookie.
 */
export async function bindRevealCookie(ctx: AppContext, checkoutId: number): Promise<boolean> {
  const token = await claimRevealCookie(ctx.deps.knex, checkoutId);
  if (!token) return false;
  const secure = ctx.secure || ctx.deps.config.publicBaseUrl.startsWith('https:');
  const parts = [`${revealCookieName(checkoutId)}=${token}`, 'Path=/pay/', 'HttpOnly', 'SameSite=Lax'];
  parts.push('Max-Age=7200');
  if (secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
  return true;
}
