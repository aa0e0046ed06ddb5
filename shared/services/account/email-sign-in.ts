import type { Knex } from 'knex';
import { randomToken, sha256 } from '../../crypto';
import { RateLimitedError } from '../../errors';
import type { BuyerLocale } from '../../i18n/buyer-messages';
import type { LimitDefinition } from '../../rate-limits';
import type { LimitUse } from '../rate-limiter';
import { sendEmail, type SendEmailDeps } from '../emails';

/**
 * Sign-in by e-mail (docs/account.md): a one-time link to the address, through the buyer e-mail channel
 * (`sign_in` template; GET /__dev/outbox?to=ADDRESS in development). The link's token is 256 random bits;
 * only its SHA-256 is stored; it opens one session, once, within EMAIL_LINK_MINUTES. Any valid address
 * gets a link (an address with no order has an empty account), so the form tells nobody who bought.
 *
 * Links sent are limited per address and per IP, as codes are per phone and per IP.
 */
export const EMAIL_LINK_MINUTES = 15;

const limit = (name: string, points: number, durationSeconds: number, scope: 'ip' | 'phone') =>
  Object.freeze({ name, points, durationSeconds, scope }) as LimitDefinition;
/** Five links a quarter hour and ten a day to one address; fifty a day from one IP. */
export const EMAIL_LINK_LIMITS = {
  perAddress: limit('account_link_addr', 5, 900, 'phone'),
  perAddressDay: limit('account_link_addr_day', 10, 86_400, 'phone'),
  perIp: limit('account_link_ip', 50, 86_400, 'ip'),
};

export interface EmailSignInDeps extends SendEmailDeps {
  enforce: (uses: readonly LimitUse[]) => Promise<unknown>;
}

export type EmailStartOutcome = { kind: 'sent' } | { kind: 'rate_limited'; retryAfter: number };

/** A plausible address: what the e-mail channel itself accepts (one @, no spaces, at most 254). */
export function normalEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(email) ? email : null;
}

export async function startEmailSignIn(
  deps: EmailSignInDeps,
  input: {
    email: string;
    ip: string;
    locale: BuyerLocale;
    /** Where the link opens: the platform's /account or a verified store domain's. */
    accountUrl: string;
    /** The store whose domain the buyer is on (its name brands the e-mail), else null: the platform. */
    storeId: number | null;
  },
): Promise<EmailStartOutcome> {
  try {
    await deps.enforce([
      { def: EMAIL_LINK_LIMITS.perIp, key: input.ip },
      { def: EMAIL_LINK_LIMITS.perAddress, key: input.email },
      { def: EMAIL_LINK_LIMITS.perAddressDay, key: input.email },
    ]);
  } catch (err) {
    if (err instanceof RateLimitedError) return { kind: 'rate_limited', retryAfter: err.retryAfterSeconds };
    throw err;
  }
  const token = randomToken(32, 'bel_');
  const tokenHash = sha256(token);
  await deps.knex.transaction(async (trx) => {
    await trx('buyer_email_links').insert({
      email: input.email,
      token_hash: tokenHash,
      expires_at: new Date(Date.now() + EMAIL_LINK_MINUTES * 60_000),
    });
    await sendEmail(deps, trx, {
      purpose: 'sign_in',
      key: `account-link:${tokenHash}`,
      to: input.email,
      locale: input.locale,
      template: 'sign_in',
      storeId: input.storeId,
      data: { url: `${input.accountUrl}/email/${token}`, expires_minutes: EMAIL_LINK_MINUTES },
    });
  });
  return { kind: 'sent' };
}

/** The address a link signs in, once: the link is spent by the first request that uses it. */
export async function consumeEmailLink(knex: Knex, token: string): Promise<string | null> {
  if (!/^bel_[A-Za-z0-9_-]{20,80}$/.test(token)) return null;
  const rows = (await knex('buyer_email_links')
    .where({ token_hash: sha256(token) })
    .whereNull('used_at')
    .where('expires_at', '>', new Date())
    .update({ used_at: new Date() })
    .returning(['email'])) as { email: string }[];
  return rows[0]?.email ?? null;
}
