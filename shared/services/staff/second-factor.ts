import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { Cipher, hmacSha256, randomToken, safeEqual, sha256 } from '../../crypto';
import { base32Decode, base32Encode, matchingStep, newTotpSecret } from './totp';

/**
 * A person's second factor for the dashboard (docs/dashboard.md): an authenticator app (TOTP) and ten
 * one-time recovery codes. The app's seed is sealed at rest with the platform's cipher
 * (`merchant_users.totp_secret_encrypted`, and `totp_pending_secret_encrypted` while it is being set up);
 * recovery codes are kept only as a keyed hash. A code is accepted once: the step it belongs to must be
 * later than the last accepted step, moved forward by one conditional UPDATE, so two requests with the
 * same code cannot both pass.
 */
export const RECOVERY_CODE_COUNT = 10;
/** The half-signed-in state between the phone code and the second factor. */
export const CHALLENGE_TTL_SECONDS = 300;
/** Wrong second-factor codes one challenge takes before the phone code has to be done again. */
export const CHALLENGE_MAX_ATTEMPTS = 5;

export interface SecondFactorDeps {
  knex: Knex;
  cipher: Cipher;
  appSecret: string;
}

export interface SecondFactorStatus {
  enabled: boolean;
  /** The seed being set up (base32), shown with its QR code until a first code confirms it. */
  pendingSecret: string | null;
  recoveryCodesLeft: number;
}

interface UserRow {
  id: number;
  totp_secret_encrypted: string | null;
  totp_pending_secret_encrypted: string | null;
  totp_enabled_at: Date | null;
  totp_last_step: string | number | null;
}

export class SecondFactor {
  constructor(private readonly deps: SecondFactorDeps) {}

  private async user(userId: number): Promise<UserRow | undefined> {
    const row: UserRow | undefined = await this.deps
      .knex('merchant_users')
      .where({ id: userId })
      .first(
        'id',
        'totp_secret_encrypted',
        'totp_pending_secret_encrypted',
        'totp_enabled_at',
        'totp_last_step',
      );
    return row;
  }

  async enabled(userId: number): Promise<boolean> {
    const row = await this.user(userId);
    return Boolean(row?.totp_enabled_at && row.totp_secret_encrypted);
  }

  async status(userId: number): Promise<SecondFactorStatus> {
    const row = await this.user(userId);
    const enabled = Boolean(row?.totp_enabled_at && row.totp_secret_encrypted);
    const [{ count }] = await this.deps
      .knex('merchant_user_recovery_codes')
      .where({ merchant_user_id: userId })
      .whereNull('used_at')
      .count<{ count: string }[]>({ count: '*' });
    return {
      enabled,
      pendingSecret:
        !enabled && row?.totp_pending_secret_encrypted
          ? this.deps.cipher.decrypt(row.totp_pending_secret_encrypted)
          : null,
      recoveryCodesLeft: enabled ? Number(count) : 0,
    };
  }

  /** A new seed to set up (replacing one not yet confirmed); null when the app is already switched on. */
  async beginEnrolment(userId: number): Promise<string | null> {
    const secret = base32Encode(newTotpSecret());
    const updated = await this.deps
      .knex('merchant_users')
      .where({ id: userId })
      .whereNull('totp_enabled_at')
      .update({ totp_pending_secret_encrypted: this.deps.cipher.encrypt(secret) });
    return updated === 1 ? secret : null;
  }

  /**
   * Switches the app on when `code` is a current code of the seed being set up; returns the recovery codes
   * (shown once: only their hashes are kept), or null for a wrong code or nothing to confirm.
   */
  async confirmEnrolment(userId: number, code: string, now = new Date()): Promise<string[] | null> {
    const row = await this.user(userId);
    if (!row || row.totp_enabled_at || !row.totp_pending_secret_encrypted) return null;
    const sealed = row.totp_pending_secret_encrypted;
    const secret = base32Decode(this.deps.cipher.decrypt(sealed));
    const step = secret ? matchingStep(secret, code, now.getTime() / 1000) : null;
    if (step === null) return null;
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode());
    const done = await this.deps.knex.transaction(async (trx) => {
      const switched = await trx('merchant_users')
        .where({ id: userId, totp_pending_secret_encrypted: sealed })
        .whereNull('totp_enabled_at')
        .update({
          totp_secret_encrypted: sealed,
          totp_pending_secret_encrypted: null,
          totp_enabled_at: now,
          totp_last_step: step,
        });
      if (switched !== 1) return false;
      await trx('merchant_user_recovery_codes').where({ merchant_user_id: userId }).delete();
      await trx('merchant_user_recovery_codes').insert(
        codes.map((c) => ({ merchant_user_id: userId, code_hash: this.recoveryHash(userId, c) })),
      );
      return true;
    });
    return done ? codes : null;
  }

  /** Accepts a current code of the switched-on app, once (see the class comment). */
  async verifyCode(userId: number, code: string, now = new Date()): Promise<boolean> {
    const row = await this.user(userId);
    if (!row?.totp_enabled_at || !row.totp_secret_encrypted) return false;
    const secret = base32Decode(this.deps.cipher.decrypt(row.totp_secret_encrypted));
    const step = secret ? matchingStep(secret, code, now.getTime() / 1000) : null;
    if (step === null) return false;
    const moved = await this.deps
      .knex('merchant_users')
      .where({ id: userId })
      .whereNotNull('totp_enabled_at')
      .where((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
      .update({ totp_last_step: step });
    return moved === 1;
  }

  /** Spends one unused recovery code; false when none matches. */
  async useRecoveryCode(userId: number, code: string): Promise<boolean> {
    const normalized = normalizeRecoveryCode(code);
    if (normalized.length !== 10) return false;
    const given = this.recoveryHash(userId, normalized);
    const rows: { id: number; code_hash: string }[] = await this.deps
      .knex('merchant_user_recovery_codes')
      .where({ merchant_user_id: userId })
      .whereNull('used_at')
      .select('id', 'code_hash');
    let match: number | null = null;
    for (const row of rows) if (safeEqual(row.code_hash, given) && match === null) match = row.id;
    if (match === null) return false;
    const used = await this.deps
      .knex('merchant_user_recovery_codes')
      .where({ id: match })
      .whereNull('used_at')
      .update({ used_at: new Date() });
    return used === 1;
  }

  /** Switches the app off (after a current code, checked by the caller) and drops the recovery codes. */
  async disable(userId: number): Promise<void> {
    await this.deps.knex.transaction(async (trx) => {
      await trx('merchant_users').where({ id: userId }).update({
        totp_secret_encrypted: null,
        totp_pending_secret_encrypted: null,
        totp_enabled_at: null,
        totp_last_step: null,
      });
      await trx('merchant_user_recovery_codes').where({ merchant_user_id: userId }).delete();
    });
  }

  private recoveryHash(userId: number, code: string): string {
    return hmacSha256(this.deps.appSecret, `dashboard-recovery:${userId}:${normalizeRecoveryCode(code)}`);
  }
}

/** Ten base32 letters and digits, shown as two groups of five ("abcde-fgh23"). */
function newRecoveryCode(): string {
  const raw = base32Encode(crypto.randomBytes(7)).slice(0, 10).toLowerCase();
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[^a-z2-7]/g, '');
}

/** A challenge that a browser holds (its cookie token) between the phone code and the second factor. */
export interface SignInChallenge {
  id: number;
  merchant_user_id: number;
  store_id: number | null;
  signup_store_name: string | null;
  signup_owner_name: string | null;
}

export async function createChallenge(
  knex: Knex,
  input: { userId: number; storeId: number | null; signup?: { storeName: string; ownerName: string } },
): Promise<string> {
  const token = randomToken(32, 'sfc_');
  await knex('dashboard_sign_in_challenges').insert({
    merchant_user_id: input.userId,
    token_hash: sha256(token),
    store_id: input.storeId,
    signup_store_name: input.signup?.storeName ?? null,
    signup_owner_name: input.signup?.ownerName ?? null,
    expires_at: new Date(Date.now() + CHALLENGE_TTL_SECONDS * 1000),
  });
  return token;
}

/** The live, unused challenge of this cookie token, or null. */
export async function findChallenge(knex: Knex, token: string): Promise<SignInChallenge | null> {
  if (!token || token.length > 200) return null;
  const row: SignInChallenge | undefined = await knex('dashboard_sign_in_challenges')
    .where({ token_hash: sha256(token) })
    .whereNull('used_at')
    .where('attempts', '<', CHALLENGE_MAX_ATTEMPTS)
    .where('expires_at', '>', new Date())
    .first('id', 'merchant_user_id', 'store_id', 'signup_store_name', 'signup_owner_name');
  return row ?? null;
}

/** Reserves one attempt of the challenge before a code is compared; false when none is left. */
export async function reserveChallengeAttempt(knex: Knex, id: number): Promise<boolean> {
  const n = await knex('dashboard_sign_in_challenges')
    .where({ id })
    .whereNull('used_at')
    .where('attempts', '<', CHALLENGE_MAX_ATTEMPTS)
    .where('expires_at', '>', new Date())
    .increment('attempts', 1);
  return Number(n) === 1;
}

/** Ends the challenge: true for the one request that does (one challenge, one session). */
export async function finishChallenge(knex: Knex, id: number): Promise<boolean> {
  const n = await knex('dashboard_sign_in_challenges')
    .where({ id })
    .whereNull('used_at')
    .update({ used_at: new Date() });
  return n === 1;
}

/** Attempts left on a challenge (for the page's message). */
export async function challengeAttemptsLeft(knex: Knex, id: number): Promise<number> {
  const row: { attempts: number } | undefined = await knex('dashboard_sign_in_challenges')
    .where({ id })
    .first('attempts');
  return Math.max(0, CHALLENGE_MAX_ATTEMPTS - (row?.attempts ?? CHALLENGE_MAX_ATTEMPTS));
}
