import type { Knex } from 'knex';
import { BlockedPhone, OtpSession, Product, Store } from '../../../db/models';
import type { Config } from '../../config';
import { Cipher, hmacSha256, randomDigits, randomToken, safeEqual, sha256 } from '../../crypto';
import {
  CodedError,
  DomainError,
  InvalidError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
} from '../../errors';
import { maskPhone, parsePhone, Phone } from '../../phone';
import type { Queues } from '../../queues';
import { dispatchStaged, StagedJob, stageJob } from '../../queues/outbox';
import type { BuyerLocale } from '../../i18n/buyer-messages';
import { assertMayStartWork, RequestBudget } from '../../request-deadline';
import { LIMITS, LimitDefinition } from '../../rate-limits';
import { findOrAdoptCustomer, createCustomer, CustomerView, customerView } from '../customers';
import { issueCustomerToken, TokenKind } from '../tokens';
import { MAX_FAILURES_PER_PHONE_PER_DAY, OtpGuards, utcDay } from './guards';

/**
 * Phone OTP authentication, shared by the Embed API and the Storefront API (`channel`).
 *
 * A session moves pending -> verified (existing customer) or pending -> registration_open (new phone)
 * -> registration_used. Codes are 4 digits from a CSPRNG; only an HMAC of the code is kept for checking,
 * and an encrypted copy for the sending job, cleared once the message has been handed over. Attempts are
 * reserved with one conditional UPDATE before the code is compared, so simultaneous guesses cannot get
 * past the limit.
 *
 * Beyond the spec's limits (see ./guards): at most MAX_FAILURES_PER_PHONE_PER_DAY failed verifications per
 * phone per UTC day whatever the session, store or API (a resend gives the new code its three attempts
 * but not the day back); per-IP start and resend limits keyed by the address alone, so they do not grow
 * with the number of stores; a daily message budget per store; and the calling codes a store accepts.
 */
export const CODE_LENGTH = 4;
export const MAX_ATTEMPTS = 3;

export type OtpChannel = TokenKind;

/** Consumes one rate limit for a key; throws RateLimitedError when exhausted. */
export type ConsumeLimit = (def: LimitDefinition, key: string, cost?: number) => Promise<void>;

/** Without a logger: a job left to the relay is simply relayed. */
const SILENT = { warn: (): void => undefined };

export interface OtpDeps {
  config: Pick<Config, 'otpTtlSeconds' | 'otpResendCooldownSeconds'>;
  knex: Knex;
  queues: Queues;
  appSecret: string;
  /** Earlier secrets (APP_SECRET_PREVIOUS): a code sent before a rotation still matches. */
  appSecretPrevious?: readonly string[];
  cipher: Cipher;
  consumeLimit: ConsumeLimit;
  /**
   * Consumes several limits in one Redis round trip (the rate limiter's script), refusing when any is
   * exhausted; without it each is consumed with consumeLimit in turn.
   */
  consumeLimits?: (uses: readonly { def: LimitDefinition; key: string }[]) => Promise<void>;
  /** Where a send job that Redis could not take yet is reported (the outbox relay enqueues it). */
  logger?: { warn(obj: object, msg: string): void };
  guards: OtpGuards;
}

export interface StartInput {
  country_code: string;
  phone: string;
  product_id?: number;
}

export interface StartResult {
  session_token: string;
  expires_in: number;
  resend_cooldown: number;
  masked_phone: string;
}

export type VerifyResult =
  | { status: 'authenticated'; customer: CustomerView; token: string }
  | { status: 'needs_registration'; session_token: string };

export interface CompleteInput {
  session_token: string;
  firstName: string;
  lastName: string;
  email: string;
}

const LIMITS_BY_CHANNEL = {
  embed: {
    startIp: LIMITS.otpStartPerIp,
    startPhone: LIMITS.otpStartPerPhone,
    resendIp: LIMITS.otpResendPerIp,
    resendPhone: LIMITS.otpResendPerPhone,
  },
  storefront: {
    startIp: LIMITS.storefrontAuthStartPerIp,
    startPhone: LIMITS.storefrontAuthPerPhone,
    resendIp: LIMITS.storefrontResendPerIp,
    resendPhone: LIMITS.storefrontResendPerPhone,
  },
} as const;

export class OtpService {
  constructor(private readonly deps: OtpDeps) {}

  async start(
    store: Store,
    channel: OtpChannel,
    input: StartInput,
    ip: string,
    budget?: RequestBudget,
    /** The language of the code's message (the request's Accept-Language); English by default. */
    locale: BuyerLocale = 'en',
  ): Promise<StartResult> {
    const phone = parsePhone(input.country_code, input.phone);
    if (!phone) {
      throw ValidationError.field('phone', 'The phone number is not valid for this country code.');
    }
    if (store.allowed_country_codes && !store.allowed_country_codes.includes(phone.countryCode)) {
      throw ValidationError.field(
        'country_code',
        'This store does not accept phone numbers of this country.',
      );
    }
    const limits = LIMITS_BY_CHANNEL[channel];
    // Keyed by the address alone: a client cannot multiply its allowance by the number of stores.
    // Both limits in one round trip when the limiter can (a refused request counts in both buckets).
    const uses = [
      { def: limits.startIp, key: ip },
      { def: limits.startPhone, key: phone.e164 },
    ];
    if (this.deps.consumeLimits) await this.deps.consumeLimits(uses);
    else for (const use of uses) await this.deps.consumeLimit(use.def, use.key);

    // The product and the blocked list are read at once; an unknown product is answered first.
    const [product, blocked] = await Promise.all([
      channel === 'embed'
        ? Product.query(this.deps.knex)
            .findById(input.product_id ?? 0)
            .where({ store_id: store.id, active: true })
        : Promise.resolve(null),
      this.isBlocked(store, phone),
    ]);
    if (channel === 'embed' && !product) {
      throw new NotFoundError('Product not found').withCode('product_not_found');
    }
    if (blocked) throw new CodedError('PHONE_BLOCKED', 'This phone number is blocked.');

    // No code is issued (and sent) for a request whose client has gone or that outlived its budget.
    assertMayStartWork(budget);
    await this.spendMessage(store);
    const sessionToken = randomToken(32, 'ots_');
    const tokenHash = sha256(sessionToken);
    const code = randomDigits(CODE_LENGTH);
    const now = new Date();
    // The session and its send job are committed together (shared/queues/outbox.ts): a request refused
    // before the commit leaves neither; a committed one gets its code sent exactly once, now or, Redis
    // being out of reach, by the outbox relay once it is back.
    const staged = await this.deps.knex.transaction(async (trx) => {
      // RETURNING *: the row in the insert's own round trip (insertAndFetch reads it again).
      const session = await OtpSession.query(trx)
        .insert({
          store_id: store.id,
          channel,
          product_id: input.product_id ?? null,
          token_hash: tokenHash,
          country_code: phone.countryCode,
          phone: phone.national,
          e164: phone.e164,
          code_hmac: this.codeHmac(tokenHash, 1, code),
          code_encrypted: this.deps.cipher.encrypt(code),
          code_version: 1,
          last_sent_at: now,
          expires_at: new Date(now.getTime() + this.deps.config.otpTtlSeconds * 1000),
        })
        .returning('*');
      return [await this.stageSend(trx, session, 'whatsapp_first', locale)];
    });
    await dispatchStaged(this.outbox(), staged);
    return {
      session_token: sessionToken,
      expires_in: this.deps.config.otpTtlSeconds,
      resend_cooldown: this.deps.config.otpResendCooldownSeconds,
      masked_phone: maskPhone(phone.national),
    };
  }

  async resend(
    store: Store,
    channel: OtpChannel,
    sessionToken: string,
    ip: string,
    locale: BuyerLocale = 'en',
  ): Promise<{ message: string; resend_cooldown: number }> {
    const session = await this.findSession(store, channel, sessionToken);
    this.assertPending(session);
    const wait = this.resendWaitSeconds(session);
    if (wait > 0) {
      throw new CodedError('COOLDOWN_ACTIVE', `Please wait ${wait} seconds before requesting a new code.`, {
        retry_after: wait,
      });
    }
    const limits = LIMITS_BY_CHANNEL[channel];
    await this.deps.consumeLimit(limits.resendIp, ip);
    await this.deps.consumeLimit(limits.resendPhone, session.e164);
    await this.spendMessage(store);

    const code = randomDigits(CODE_LENGTH);
    const version = session.code_version + 1;
    const now = new Date();
    const cooldownStart = new Date(now.getTime() - this.deps.config.otpResendCooldownSeconds * 1000);
    // Conditional on the version read and on the cooldown: of two simultaneous resends one wins. The new
    // code and its send job are committed together (shared/queues/outbox.ts).
    const staged = await this.deps.knex.transaction(async (trx) => {
      const updated = await OtpSession.query(trx)
        .patch({
          code_hmac: this.codeHmac(session.token_hash, version, code),
          code_encrypted: this.deps.cipher.encrypt(code),
          code_version: version,
          attempts: 0,
          resends: session.resends + 1,
          last_sent_at: now,
          expires_at: new Date(now.getTime() + this.deps.config.otpTtlSeconds * 1000),
        })
        .where({ id: session.id, status: 'pending', code_version: session.code_version })
        .where('last_sent_at', '<=', cooldownStart);
      if (updated === 0) {
        throw new CodedError('COOLDOWN_ACTIVE', 'Please wait before requesting a new code.', {
          retry_after: this.deps.config.otpResendCooldownSeconds,
        });
      }
      return [await this.stageSend(trx, { id: session.id, code_version: version }, 'sms_only', locale)];
    });
    await dispatchStaged(this.outbox(), staged);
    return {
      message: 'A new verification code has been sent by SMS.',
      resend_cooldown: this.deps.config.otpResendCooldownSeconds,
    };
  }

  async verify(store: Store, channel: OtpChannel, sessionToken: string, code: string): Promise<VerifyResult> {
    const session = await this.findSession(store, channel, sessionToken);
    this.assertPending(session);

    // One failure slot of the phone's day is taken before anything is compared and handed back unless the
    // code turns out wrong: past the cap even the right code is refused until the day is over.
    const slot = await this.deps.guards.takeFailureSlot(session.e164);
    if (slot.failures > MAX_FAILURES_PER_PHONE_PER_DAY) {
      await this.deps.guards.releaseFailure(session.e164);
      throw this.phoneLocked(channel, slot.retryAfter);
    }
    let failed = false;
    try {
      return await this.compare(session, channel, sessionToken, code, slot.failures, slot.retryAfter, () => {
        failed = true;
      });
    } finally {
      if (!failed) await this.deps.guards.releaseFailure(session.e164).catch(() => undefined);
    }
  }

  /** The code check proper, once a failure slot of the phone's day is held; `onFailure` marks it spent. */
  private async compare(
    session: OtpSession,
    channel: OtpChannel,
    sessionToken: string,
    code: string,
    phoneFailures: number,
    retryAfter: number,
    onFailure: () => void,
  ): Promise<VerifyResult> {
    // Reserve one attempt atomically before comparing: at most MAX_ATTEMPTS comparisons per code, however
    // many requests arrive at once.
    const reserved = await this.deps
      .knex('otp_sessions')
      .where({ id: session.id, status: 'pending' })
      .whereNotNull('code_hmac')
      .where('attempts', '<', MAX_ATTEMPTS)
      .where('expires_at', '>', new Date())
      .increment('attempts', 1)
      .returning(['attempts', 'code_hmac', 'code_version']);
    if (reserved.length === 0) {
      const current = await OtpSession.query(this.deps.knex).findById(session.id);
      if (!current) throw new NotFoundError('Session not found').withCode('session_not_found');
      this.assertPending(current);
      throw this.maxAttempts();
    }
    const attempt = reserved[0] as { attempts: number; code_hmac: string; code_version: number };

    const matches = [this.deps.appSecret, ...(this.deps.appSecretPrevious ?? [])].some((secret) =>
      safeEqual(this.codeHmac(session.token_hash, attempt.code_version, code, secret), attempt.code_hmac),
    );
    if (!matches) {
      onFailure();
      const phoneRemaining = MAX_FAILURES_PER_PHONE_PER_DAY - phoneFailures;
      if (phoneRemaining <= 0) throw this.phoneLocked(channel, retryAfter);
      const remaining = Math.min(MAX_ATTEMPTS - attempt.attempts, phoneRemaining);
      if (remaining <= 0) throw this.maxAttempts();
      const wait = this.resendWaitSeconds(session);
      throw new CodedError('INVALID_CODE', 'Invalid verification code.', {
        remaining_attempts: remaining,
        cooldown_seconds: wait > 0 ? wait : null,
      });
    }

    return this.deps.knex.transaction(async (trx) => {
      const customer = await findOrAdoptCustomer(trx, session.store_id, session.e164);
      const done = await OtpSession.query(trx)
        .patch({
          status: customer ? 'verified' : 'registration_open',
          customer_id: customer?.id ?? null,
          code_hmac: null,
          code_encrypted: null,
          verified_at: new Date(),
        })
        .where({ id: session.id, status: 'pending', code_version: attempt.code_version });
      // Another request verified this session (or a resend replaced the code) in the meantime.
      if (done === 0) throw new InvalidError('Session already verified').withCode('session_already_verified');
      if (!customer) return { status: 'needs_registration' as const, session_token: sessionToken };
      const { token } = await issueCustomerToken(customer, channel, trx);
      return { status: 'authenticated' as const, customer: customerView(customer), token };
    });
  }

  async complete(
    store: Store,
    channel: OtpChannel,
    input: CompleteInput,
  ): Promise<{ customer: CustomerView; token: string }> {
    const session = await OtpSession.query(this.deps.knex).findOne({
      token_hash: sha256(input.session_token),
      store_id: store.id,
      channel,
    });
    if (
      !session ||
      session.expires_at.getTime() <= Date.now() ||
      session.status === 'pending' ||
      session.status === 'verified'
    ) {
      throw new InvalidError('Invalid or expired session').withCode('session_invalid');
    }
    if (session.status === 'registration_used')
      throw new InvalidError('Registration not allowed for this session').withCode(
        'registration_not_allowed',
      );

    return this.deps.knex.transaction(async (trx) => {
      const claimed = await OtpSession.query(trx)
        .patch({ status: 'registration_used' })
        .where({ id: session.id, status: 'registration_open' });
      if (claimed === 0)
        throw new InvalidError('Registration not allowed for this session').withCode(
          'registration_not_allowed',
        );
      const customer = await createCustomer(trx, {
        store_id: session.store_id,
        first_name: input.firstName,
        last_name: input.lastName,
        email: input.email,
        country_code: session.country_code,
        phone: session.phone,
        e164: session.e164,
      });
      await OtpSession.query(trx).patch({ customer_id: customer.id }).where({ id: session.id });
      const { token } = await issueCustomerToken(customer, channel, trx);
      return { customer: customerView(customer), token };
    });
  }

  private codeHmac(tokenHash: string, version: number, code: string, secret = this.deps.appSecret): string {
    return hmacSha256(secret, `otp:${tokenHash}:${version}:${code}`);
  }

  private async findSession(store: Store, channel: OtpChannel, sessionToken: string): Promise<OtpSession> {
    const session = await OtpSession.query(this.deps.knex).findOne({
      token_hash: sha256(sessionToken),
      store_id: store.id,
      channel,
    });
    if (!session) throw new NotFoundError('Session not found').withCode('session_not_found');
    return session;
  }

  /** Expired beats verified: a session past its lifetime answers SESSION_EXPIRED whatever its state. */
  private assertPending(session: OtpSession): void {
    if (session.expires_at.getTime() <= Date.now()) {
      throw new CodedError('SESSION_EXPIRED', 'Session expired. Please start again.');
    }
    if (session.status !== 'pending')
      throw new InvalidError('Session already verified').withCode('session_already_verified');
  }

  private maxAttempts(): DomainError {
    return new CodedError('MAX_ATTEMPTS_REACHED', 'Maximum attempts reached. Please request a new code.');
  }

  /**
   * The phone has used up its failed verifications for the day: the Embed API's MAX_ATTEMPTS_REACHED,
   * the Storefront's 429, as the operator contract (docs/operations.md) pins them.
   */
  private phoneLocked(channel: OtpChannel, retryAfter: number): DomainError {
    const message = 'Too many wrong codes for this phone number today. Please try again tomorrow.';
    return channel === 'embed'
      ? new CodedError('MAX_ATTEMPTS_REACHED', message, { retry_after: retryAfter })
      : new RateLimitedError(retryAfter, message);
  }

  /** One OTP message of the store's daily budget; refused (429) once it is spent. */
  private async spendMessage(store: Store): Promise<void> {
    if (await this.deps.guards.spendMessage(store.id)) return;
    throw new RateLimitedError(
      utcDay().secondsLeft,
      'This store cannot send more verification codes today. Please try again later.',
    );
  }

  private resendWaitSeconds(session: Pick<OtpSession, 'last_sent_at'>): number {
    if (!session.last_sent_at) return 0;
    const readyAt = session.last_sent_at.getTime() + this.deps.config.otpResendCooldownSeconds * 1000;
    return Math.max(0, Math.ceil((readyAt - Date.now()) / 1000));
  }

  private async isBlocked(store: Store, phone: Phone): Promise<boolean> {
    const blocked = await BlockedPhone.query(this.deps.knex)
      .where({ e164: phone.e164 })
      .where((q) => q.where({ store_id: store.id }).orWhereNull('store_id'))
      .first();
    return blocked !== undefined;
  }

  private stageSend(
    trx: Knex.Transaction,
    session: Pick<OtpSession, 'id' | 'code_version'>,
    route: 'whatsapp_first' | 'sms_only',
    locale: BuyerLocale,
  ): Promise<StagedJob> {
    return stageJob(
      trx,
      'otp',
      { otpSessionId: session.id, codeVersion: session.code_version, route, locale },
      { jobId: `otp-${session.id}-${session.code_version}` },
    );
  }

  private outbox() {
    return { knex: this.deps.knex, queues: this.deps.queues, logger: this.deps.logger ?? SILENT };
  }
}
