import type { Knex } from 'knex';
import type { Config } from '../../config';
import { Cipher, hmacSha256, randomDigits, randomToken, safeEqual, sha256 } from '../../crypto';
import { RateLimitedError } from '../../errors';
import { maskPhone, parsePhone, Phone } from '../../phone';
import { enqueue, Queues } from '../../queues';
import { LimitDefinition, LIMITS } from '../../rate-limits';
import { ConsumeLimit, MAX_ATTEMPTS } from '../otp';
import { MAX_FAILURES_PER_PHONE_PER_DAY, OtpGuards } from '../otp/guards';

/**
 * Dashboard sign-in and sign-up codes, on the platform's own OTP machinery: the same `otp_sessions`
 * rows (channel `dashboard`, no store: the code belongs to a person), the same code HMAC, the same
 * `otp` job that sends WhatsApp first and SMS when WhatsApp cannot deliver (the outbox driver in
 * development), the same per-IP and per-phone daily start limits, the same three attempts per code, and
 * the same cap of failed codes per phone and day as the buyers' sign-in (counted together with theirs).
 *
 * What guards a whole store is stronger than a buyer's code (docs/dashboard.md, "Signing in"): the code
 * has DASHBOARD_CODE_LENGTH digits; codes sent and codes checked are also throttled per IP and per phone
 * over a quarter of an hour; and a phone that belongs to no store is answered exactly as a merchant's
 * (a decoy session: same row, same job, same pages, same limits) except that nothing is ever sent to it
 * and no code matches, so the form does not tell who is a merchant.
 *
 * Outcomes are returned, not thrown: the pages say each one in the merchant's language.
 */
export const DASHBOARD_CHANNEL = 'dashboard';
/** The operator contract allows 4 to 8 digits for a dashboard code; the buyers' codes stay at 4. */
export const DASHBOARD_CODE_LENGTH = 6;

export type StartOutcome =
  | { kind: 'sent'; sessionToken: string; maskedPhone: string; phone: Phone }
  | { kind: 'invalid_phone' }
  | { kind: 'rate_limited'; retryAfter: number };

export type VerifyOutcome =
  | { kind: 'ok'; phone: Phone }
  | { kind: 'wrong'; remaining: number }
  | { kind: 'max_attempts' }
  | { kind: 'locked'; retryAfter: number }
  | { kind: 'rate_limited'; retryAfter: number }
  | { kind: 'expired' };

export type ResendOutcome =
  | { kind: 'sent' }
  | { kind: 'cooldown'; wait: number }
  | { kind: 'expired' }
  | { kind: 'rate_limited'; retryAfter: number };

export interface DashboardSignInDeps {
  config: Pick<Config, 'otpTtlSeconds' | 'otpResendCooldownSeconds'>;
  knex: Knex;
  queues: Queues;
  appSecret: string;
  /** Earlier secrets (APP_SECRET_PREVIOUS): a code sent before a rotation still matches. */
  appSecretPrevious?: readonly string[];
  cipher: Cipher;
  consumeLimit: ConsumeLimit;
  /** The per-phone daily cap of failed codes, shared with the Embed and Storefront sign-in. */
  guards: Pick<OtpGuards, 'takeFailureSlot' | 'releaseFailure'>;
  /**
   * The buyer's account (shared/services/account) signs in with the same codes: its own channel, and
   * every valid phone gets a real code (any phone may have bought something; the account of a phone
   * with no order is simply empty). Default: the dashboard's channel, codes only to store members.
   */
  channel?: typeof DASHBOARD_CHANNEL | 'account';
}

interface SessionRow {
  id: number;
  token_hash: string;
  country_code: string;
  phone: string;
  e164: string;
  code_version: number;
  status: string;
  decoy: boolean;
  last_sent_at: Date | null;
  expires_at: Date;
}

export class DashboardSignIn {
  private readonly channel: string;

  constructor(private readonly deps: DashboardSignInDeps) {
    this.channel = deps.channel ?? DASHBOARD_CHANNEL;
  }

  /**
   * Sends a code to the phone. Sign-up sends to any valid number. Sign-in sends only to a person who
   * belongs to a store; any other number gets a decoy session that goes through the same steps (limits,
   * lookup, row, job) and the same answer, but whose job finds no code to send and whose code never
   * matches (see the class comment).
   */
  async start(
    purpose: 'signin' | 'signup',
    input: { country_code: string; phone: string },
    ip: string,
    /** The page's language: the code's message is written in it (docs/dashboard.md, "People, roles, sign-in"). */
    locale: 'ar' | 'en' = 'en',
  ): Promise<StartOutcome> {
    const phone =
      parseInternational(input.phone) ??
      parsePhone(input.country_code, stripCountryCode(input.country_code, input.phone));
    if (!phone) return { kind: 'invalid_phone' };
    const limited = await this.limit([
      [LIMITS.otpStartPerIp, `${this.channel}:${ip}`],
      [LIMITS.dashboardCodeSendPerIp, ip],
      [LIMITS.otpStartPerPhone, phone.e164],
      [LIMITS.dashboardCodeSendPerPhone, phone.e164],
    ]);
    if (limited) return limited;
    let decoy = false;
    if (purpose === 'signin' && this.channel === DASHBOARD_CHANNEL) {
      const member = await this.deps
        .knex('merchant_users as u')
        .join('store_members as m', 'm.merchant_user_id', 'u.id')
        .where('u.e164', phone.e164)
        .first('u.id');
      decoy = !member;
    }
    const sessionToken = randomToken(32, 'ots_');
    const tokenHash = sha256(sessionToken);
    const code = randomDigits(DASHBOARD_CODE_LENGTH);
    const now = new Date();
    const [row] = await this.deps
      .knex('otp_sessions')
      .insert({
        store_id: null,
        channel: this.channel,
        token_hash: tokenHash,
        country_code: phone.countryCode,
        phone: phone.national,
        e164: phone.e164,
        ...this.codeColumns(tokenHash, 1, code, decoy),
        decoy,
        code_version: 1,
        last_sent_at: now,
        expires_at: new Date(now.getTime() + this.deps.config.otpTtlSeconds * 1000),
      })
      .returning(['id']);
    const id = (row as { id: number }).id;
    try {
      await this.enqueueSend(id, 1, 'whatsapp_first', locale);
    } catch (err) {
      await this.deps.knex('otp_sessions').where({ id }).delete();
      throw err;
    }
    return { kind: 'sent', sessionToken, maskedPhone: maskPhone(phone.national), phone };
  }

  /**
   * What a code row holds. A decoy's HMAC is of a random 256-bit value no typed code can equal, and it
   * has no encrypted copy: the send job finds nothing to deliver (deliverOtp, "already-sent").
   */
  private codeColumns(
    tokenHash: string,
    version: number,
    code: string,
    decoy: boolean,
  ): { code_hmac: string; code_encrypted: string | null } {
    if (decoy) return { code_hmac: this.codeHmac(tokenHash, version, randomToken(32)), code_encrypted: null };
    return {
      code_hmac: this.codeHmac(tokenHash, version, code),
      code_encrypted: this.deps.cipher.encrypt(code),
    };
  }

  /** Consumes the throttles in turn; the first refusal, with the seconds until it lifts, or null. */
  private async limit(
    uses: [LimitDefinition, string][],
  ): Promise<{ kind: 'rate_limited'; retryAfter: number } | null> {
    try {
      for (const [def, key] of uses) await this.deps.consumeLimit(def, key);
      return null;
    } catch (err) {
      if (err instanceof RateLimitedError) return { kind: 'rate_limited', retryAfter: err.retryAfterSeconds };
      throw err;
    }
  }

  /**
   * The per-IP and per-phone throttles of checking codes (docs/dashboard.md), for the phone code here and
   * for the second factor's codes in the sign-in routes: one point per code checked, before it is.
   */
  async throttleCheck(
    ip: string,
    e164: string,
  ): Promise<{ kind: 'rate_limited'; retryAfter: number } | null> {
    return this.limit([
      [LIMITS.dashboardVerifyPerIp, ip],
      [LIMITS.dashboardVerifyPerPhone, e164],
    ]);
  }

  /**
   * Checks a code. One failure slot of the phone's day is taken first and handed back unless the code
   * turns out wrong (past the cap even the right code is refused until the day is over); then an attempt
   * of the session is reserved atomically, so parallel guesses cannot pass either limit.
   */
  async verify(sessionToken: string, code: string, ip: string): Promise<VerifyOutcome> {
    const session = await this.find(sessionToken);
    if (!session || session.status !== 'pending' || session.expires_at.getTime() <= Date.now()) {
      return { kind: 'expired' };
    }
    const limited = await this.throttleCheck(ip, session.e164);
    if (limited) return limited;
    const slot = await this.deps.guards.takeFailureSlot(session.e164);
    let failed = false;
    try {
      if (slot.failures > MAX_FAILURES_PER_PHONE_PER_DAY)
        return { kind: 'locked', retryAfter: slot.retryAfter };
      const outcome = await this.compare(session, code);
      failed = outcome.kind === 'wrong' || (outcome.kind === 'max_attempts' && outcome.compared);
      return outcome.kind === 'max_attempts' ? { kind: 'max_attempts' } : outcome;
    } finally {
      if (!failed) await this.deps.guards.releaseFailure(session.e164).catch(() => undefined);
    }
  }

  private async compare(
    session: SessionRow,
    code: string,
  ): Promise<
    Exclude<VerifyOutcome, { kind: 'max_attempts' | 'locked' }> | { kind: 'max_attempts'; compared: boolean }
  > {
    const reserved = await this.deps
      .knex('otp_sessions')
      .where({ id: session.id, status: 'pending' })
      .whereNotNull('code_hmac')
      .where('attempts', '<', MAX_ATTEMPTS)
      .where('expires_at', '>', new Date())
      .increment('attempts', 1)
      .returning(['attempts', 'code_hmac', 'code_version']);
    if (reserved.length === 0) return { kind: 'max_attempts', compared: false };
    const attempt = reserved[0] as { attempts: number; code_hmac: string; code_version: number };
    const matches = [this.deps.appSecret, ...(this.deps.appSecretPrevious ?? [])].some((secret) =>
      safeEqual(
        this.codeHmac(session.token_hash, attempt.code_version, code.trim(), secret),
        attempt.code_hmac,
      ),
    );
    if (!matches) {
      const remaining = MAX_ATTEMPTS - attempt.attempts;
      return remaining > 0 ? { kind: 'wrong', remaining } : { kind: 'max_attempts', compared: true };
    }
    const done = await this.deps
      .knex('otp_sessions')
      .where({ id: session.id, status: 'pending', code_version: attempt.code_version })
      .update({ status: 'verified', code_hmac: null, code_encrypted: null, verified_at: new Date() });
    // Another request used this code first: one code, one sign-in.
    if (done === 0) return { kind: 'expired' };
    return {
      kind: 'ok',
      phone: { countryCode: session.country_code, national: session.phone, e164: session.e164 },
    };
  }

  /** A new code by SMS (WhatsApp did not arrive), after the cooldown, under the per-phone resend limit. */
  async resend(sessionToken: string, ip: string, locale: 'ar' | 'en' = 'en'): Promise<ResendOutcome> {
    const session = await this.find(sessionToken);
    if (!session || session.status !== 'pending' || session.expires_at.getTime() <= Date.now()) {
      return { kind: 'expired' };
    }
    const cooldownMs = this.deps.config.otpResendCooldownSeconds * 1000;
    const wait = session.last_sent_at
      ? Math.ceil((session.last_sent_at.getTime() + cooldownMs - Date.now()) / 1000)
      : 0;
    if (wait > 0) return { kind: 'cooldown', wait };
    const limited = await this.limit([
      [LIMITS.otpResendPerIp, `${this.channel}:${ip}`],
      [LIMITS.otpResendPerPhone, session.e164],
    ]);
    if (limited) return limited;
    const code = randomDigits(DASHBOARD_CODE_LENGTH);
    const version = session.code_version + 1;
    const now = new Date();
    const updated = await this.deps
      .knex('otp_sessions')
      .where({ id: session.id, status: 'pending', code_version: session.code_version })
      .where('last_sent_at', '<=', new Date(now.getTime() - cooldownMs))
      .update({
        ...this.codeColumns(session.token_hash, version, code, session.decoy),
        code_version: version,
        attempts: 0,
        resends: this.deps.knex.raw('resends + 1'),
        last_sent_at: now,
        expires_at: new Date(now.getTime() + this.deps.config.otpTtlSeconds * 1000),
      });
    if (updated === 0) return { kind: 'cooldown', wait: this.deps.config.otpResendCooldownSeconds };
    await this.enqueueSend(session.id, version, 'sms_only', locale);
    return { kind: 'sent' };
  }

  /** The masked phone a pending code went to (for the code page), or null when the session is over. */
  async pendingPhone(sessionToken: string): Promise<string | null> {
    const session = await this.find(sessionToken);
    if (!session || session.status !== 'pending' || session.expires_at.getTime() <= Date.now()) return null;
    return maskPhone(session.phone);
  }

  private async find(sessionToken: string): Promise<SessionRow | undefined> {
    if (!sessionToken) return undefined;
    const row: SessionRow | undefined = await this.deps
      .knex('otp_sessions')
      .where({ token_hash: sha256(sessionToken), channel: this.channel })
      .first();
    return row;
  }

  private codeHmac(tokenHash: string, version: number, code: string, secret = this.deps.appSecret): string {
    return hmacSha256(secret, `otp:${tokenHash}:${version}:${code}`);
  }

  private async enqueueSend(
    id: number,
    version: number,
    route: 'whatsapp_first' | 'sms_only',
    locale: 'ar' | 'en',
  ): Promise<void> {
    // The session row is written before, on its own: no transaction exists to stage the send in.
    await enqueue(
      this.deps.queues,
      'otp',
      { otpSessionId: id, codeVersion: version, route, locale },
      { jobId: `otp-${id}-${version}` },
    );
  }
}

/** "+971 50 123 4567" or "00971501234567": a number written with its own country code, whatever is selected. */
export function parseInternational(phone: string): Phone | null {
  const match = /^\s*(?:\+|00)(\d[\d\s().-]{6,24})$/.exec(phone);
  if (!match) return null;
  const digits = match[1].replace(/\D/g, '');
  for (let length = 1; length <= 4; length += 1) {
    const parsed = parsePhone(digits.slice(0, length), digits.slice(length));
    if (parsed) return parsed;
  }
  return null;
}

/**
 * A merchant who types the whole international number ("966500000001", "+966 50...") into the national
 * field meant the national part: the country code in front is dropped when what remains is still long
 * enough to be a number.
 */
export function stripCountryCode(countryCode: string, phone: string): string {
  const cc = countryCode.replace(/^(\+|00)/, '').trim();
  const digits = phone.replace(/[\s().-]/g, '').replace(/^(\+|00)/, '');
  if (cc && digits.startsWith(cc) && digits.length - cc.length >= 7 && /^(\+|00)?\d/.test(phone.trim())) {
    const hadPlus = /^\s*(\+|00)/.test(phone);
    if (hadPlus || digits.length > 10) return digits.slice(cc.length);
  }
  return phone;
}
