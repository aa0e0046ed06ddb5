import { InvalidError } from '../../errors';
import { noteLicensesChangedSafely } from './cache';
import { LicenseError } from './errors';
import { recordLicenseEvent } from './history';
import { identifierHashes, identifierHint, normalizeIp } from './identifiers';
import { checkState, loadSnapshot, remainingActivations, type VerifyDeps } from './verify';

/**
 * The customer's self-service reset (POST /verify/reset): whoever holds an active key frees its activations
 * (one hwid, or all) to move to a new machine without asking the merchant, at most SELF_RESET_QUOTA times
 * per SELF_RESET_WINDOW_DAYS. The key is the credential, as it is for verify; the quota keeps a shared key
 * from hopping between machines. The count is decided with the license row locked, so two resets at once
 * cannot both take the last one. A reset that removes nothing uses no quota.
 */
export const SELF_RESET_QUOTA = 2;
export const SELF_RESET_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export interface SelfResetRequest {
  productId: number;
  licenseKey: string;
  /** One hardware id (on an IP-locked license, one address) to remove; absent: every activation. */
  hwid?: string | null;
  /**
   * One activation by its row id (the buyer's account lists them: it knows the row, never the hwid,
   * which is kept only as an HMAC); under the same quota as a reset by hwid.
   */
  activationId?: number;
  now?: Date;
}

export interface SelfResetResult {
  removed: number;
  activations: { current: number; max: number; remaining: number };
  resets: {
    /** Resets used in the current window, this one included. */
    used: number;
    limit: number;
    window_days: number;
    /** When the oldest reset of the window leaves it (one more becomes available); null when some are left. */
    next_reset_at: string | null;
  };
}

export async function selfResetActivations(
  deps: VerifyDeps,
  req: SelfResetRequest,
): Promise<SelfResetResult> {
  const now = req.now ?? new Date();
  const snap = await loadSnapshot(deps.knex, req.productId, req.licenseKey.trim());
  if (!snap) throw new LicenseError('LICENSE_NOT_FOUND');
  checkState(snap, now);
  if (snap.lockType === 'none') throw new InvalidError('This license is not locked: it has no activations');
  const hwid = (req.hwid ?? '').trim();

  const outcome = await deps.knex.transaction(async (trx) => {
    await trx('licenses').where({ id: snap.id }).forUpdate().first('id');
    // The merchant's limit for the product (license_policies), else the platform's.
    const policy = await trx('license_policies')
      .where({ product_id: snap.productId })
      .first<{ reset_limit: number; reset_window_days: number } | undefined>(
        'reset_limit',
        'reset_window_days',
      );
    const quota = policy?.reset_limit ?? SELF_RESET_QUOTA;
    const windowDays = policy?.reset_window_days ?? SELF_RESET_WINDOW_DAYS;
    const WINDOW_MS = windowDays * DAY_MS;
    const since = new Date(now.getTime() - WINDOW_MS);
    const window = await trx('license_resets')
      .where('license_id', snap.id)
      .where('created_at', '>', since)
      .orderBy('created_at')
      .select<{ created_at: Date }[]>('created_at');
    const nextAt = (used: { created_at: Date }[]): string | null =>
      used.length >= quota && used.length > 0
        ? new Date(used[0]!.created_at.getTime() + WINDOW_MS).toISOString()
        : null;
    if (window.length >= quota) {
      const next = nextAt(window);
      // A limit of 0 (the merchant allows no self-service reset) has no next one.
      throw new LicenseError('RESET_LIMIT_REACHED', next === null ? {} : { next_reset_at: next });
    }
    const target = trx('license_activations').where({ license_id: snap.id });
    let hint: string | null = hwid !== '' ? identifierHint(snap.lockType as 'hwid' | 'ip', hwid) : null;
    if (req.activationId !== undefined) {
      target.where('id', req.activationId);
      const row = await trx('license_activations')
        .where({ license_id: snap.id, id: req.activationId })
        .first<{ hint: string | null } | undefined>('hint');
      hint = row?.hint ?? null;
    } else if (hwid !== '') {
      const value = snap.lockType === 'ip' ? normalizeIp(hwid) : hwid;
      target.whereIn('identifier', identifierHashes(deps, snap.lockType as 'hwid' | 'ip', value));
    }
    const removed = await target.delete();
    let used = window;
    if (removed > 0) {
      await trx('license_resets').insert({ license_id: snap.id, removed, created_at: now });
      await recordLicenseEvent(trx, {
        licenseId: snap.id,
        kind: 'reset',
        actor: 'customer',
        hint,
        removed,
        at: now,
      });
      used = [...window, { created_at: now }];
    }
    const [{ n }] = await trx('license_activations')
      .where({ license_id: snap.id })
      .count<{ n: string }[]>('* as n');
    const current = Number(n);
    if (removed > 0) {
      await trx('licenses').where({ id: snap.id }).update({ activations_count: current, updated_at: now });
    }
    return { removed, current, used: used.length, nextResetAt: nextAt(used), quota, windowDays };
  });
  if (outcome.removed > 0) await noteLicensesChangedSafely(deps, [snap.key]);
  return {
    removed: outcome.removed,
    activations: {
      current: outcome.current,
      max: snap.maxActivations,
      remaining: remainingActivations(snap.maxActivations, outcome.current),
    },
    resets: {
      used: outcome.used,
      limit: outcome.quota,
      window_days: outcome.windowDays,
      next_reset_at: outcome.nextResetAt,
    },
  };
}
