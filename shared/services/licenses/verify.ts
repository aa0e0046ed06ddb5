import type { Knex } from 'knex';
import type { LicenseStatus, LockType, PlanDuration } from '../../../db/models';
import type { HotCaches } from '../../cache/versioned';
import { noteLicensesChangedSafely, readStamp, type LicenseCacheDeps } from './cache';
import { LicenseError } from './errors';
import { identifierHashes, identifierHint, normalizeIp } from './identifiers';
import type { Entitlements } from './entitlements';
import { recordLicenseEvent } from './history';
import { dayMonthYear, durationLabel, type DurationKey, type LicenseLocale } from './labels';

/**
 * POST /verify (spec: License resources and states, License Verification API). The result object is the
 * spec's License table exactly; every refusal is a LicenseError whose code the License envelope shows.
 */

export interface VerifyDeps extends LicenseCacheDeps {
  /** This process's hot-read caches (createDeps). */
  caches: HotCaches;
  knex: Knex;
  appSecret: string;
  /** Earlier secrets (APP_SECRET_PREVIOUS): activations recorded under them are still found. */
  appSecretPrevious?: readonly string[];
  logger?: { warn(obj: object, msg: string): void };
}

export interface VerifyRequest {
  productId: number;
  licenseKey: string;
  hwid?: string | null;
  /** The client address as the HTTP tier sees it (X-Forwarded-For only with TRUST_PROXY=1). */
  ip: string;
  locale: LicenseLocale;
  now?: Date;
}

export interface LicenseResult {
  /** `grace`: past its expiry, within the product's grace period (`grace_ends_at`). */
  status: 'active' | 'grace';
  lock_type: LockType;
  product: { id: number; name: string };
  plan: {
    duration: DurationKey;
    duration_label: string;
    /** Day-month-year (23-11-2026), UTC. */
    start_date: string;
    /** Day-month-year; null for a license that never expires. */
    end_date: string | null;
    is_active: boolean;
  };
  /** ISO 8601 UTC; null for a lifetime license. */
  expires_at: string | null;
  /** Days until expiry, rounded up (1 on the last day); null for a lifetime license. */
  expires_in_days: number | null;
  activations: {
    current: number;
    /** 0: unlimited. */
    max: number;
    /** max - current, never below 0; 0 when max is 0 (unlimited). */
    remaining: number;
  };
  metadata: Record<string, unknown> | null;
  /** The plan's named features (entitlements.ts); {} without a plan. */
  entitlements: Entitlements;
  /**
   * Unix seconds: certificates of this license issued (`iat`) before it are void (certificate.ts). Moves
   * when rights are taken away: revoked, suspended, an activation reset.
   */
  not_before: number;
  /** ISO 8601: when a license in `grace` stops verifying; null when active. */
  grace_ends_at: string | null;
  /** The product's check-in period in days (certificates last at most that long); 0: none. */
  checkin_days: number;
}

/** What verify reads about a license: one row with its product and plan, cached between verifies. */
export interface LicenseSnapshot {
  id: number;
  key: string;
  productId: number;
  productName: string;
  status: LicenseStatus;
  lockType: LockType;
  maxActivations: number;
  activationsCount: number;
  startsAt: Date | null;
  createdAt: Date;
  expiresAt: Date | null;
  duration: PlanDuration | null;
  metadata: Record<string, unknown> | null;
  features: Entitlements;
  notBefore: number;
  graceDays: number;
  checkinDays: number;
  /** Floating seats (seats.ts): activations are lent out by heartbeat instead of held for good. */
  floating: boolean;
  heartbeatSeconds: number;
  /** Identifier hashes seen activated while this snapshot's stamp held (a reset moves the stamp). */
  known: Set<string>;
}

const DAY_MS = 86_400_000;
/** Keys are upper case (keys.ts); a key typed in lower case is the same key. */
export function normalizeLicenseKey(key: string): string {
  return key.trim().toUpperCase();
}

export async function loadSnapshot(
  knex: Knex,
  productId: number,
  given: string,
): Promise<LicenseSnapshot | null> {
  // By product AND key: a key of another product is not found, exactly like an unknown key. Generated keys
  // are upper case; an imported key is stored as the fixture spelled it, so that spelling matches too.
  const row = await knex('licenses as l')
    .join('products as p', 'p.id', 'l.product_id')
    .leftJoin('product_plans as pl', 'pl.id', 'l.plan_id')
    .leftJoin('license_policies as lp', 'lp.product_id', 'l.product_id')
    .whereIn('l.key', [...new Set([given, normalizeLicenseKey(given)])])
    .where('l.product_id', productId)
    .orderByRaw('l.key = ? desc', [given])
    .first<
      | {
          id: number;
          key: string;
          product_id: number;
          product_name: string;
          status: LicenseStatus;
          lock_type: LockType;
          max_activations: number;
          activations_count: number;
          starts_at: Date | null;
          created_at: Date;
          expires_at: Date | null;
          duration: PlanDuration | null;
          metadata: Record<string, unknown> | null;
          features: Entitlements | null;
          not_before: number;
          grace_days: number | null;
          checkin_days: number | null;
          floating: boolean | null;
          heartbeat_seconds: number | null;
        }
      | undefined
    >(
      'l.id',
      'l.key',
      'l.product_id',
      'p.name as product_name',
      'l.status',
      'l.lock_type',
      'l.max_activations',
      'l.activations_count',
      'l.starts_at',
      'l.created_at',
      'l.expires_at',
      'pl.duration',
      'l.metadata',
      'pl.features',
      'l.not_before',
      'lp.grace_days',
      'lp.checkin_days',
      'lp.floating',
      'lp.heartbeat_seconds',
    );
  if (!row) return null;
  return {
    id: row.id,
    key: row.key,
    productId: row.product_id,
    productName: row.product_name,
    status: row.status,
    lockType: row.lock_type,
    maxActivations: row.max_activations,
    activationsCount: row.activations_count,
    startsAt: row.starts_at,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    duration: row.duration,
    metadata: row.metadata,
    features: row.features ?? {},
    notBefore: Number(row.not_before),
    graceDays: row.grace_days ?? 0,
    checkinDays: row.checkin_days ?? 0,
    floating: row.floating ?? false,
    heartbeatSeconds: row.heartbeat_seconds ?? 600,
    known: new Set(),
  };
}

/**
 * When a license past its expiry stops verifying: its expiry plus the product's grace days; null without an
 * expiry or a grace period.
 */
export function graceEnd(snap: Pick<LicenseSnapshot, 'expiresAt' | 'graceDays'>): Date | null {
  if (snap.expiresAt === null || snap.graceDays <= 0) return null;
  return new Date(snap.expiresAt.getTime() + snap.graceDays * DAY_MS);
}

/** True for a license whose date has passed but whose grace period has not. */
export function inGrace(snap: Pick<LicenseSnapshot, 'expiresAt' | 'graceDays'>, now: Date): boolean {
  const end = graceEnd(snap);
  return end !== null && snap.expiresAt!.getTime() <= now.getTime() && now.getTime() < end.getTime();
}

/**
 * Refuses every license that does not verify, in this order: revoked, suspended, not active, expired (past
 * its date and any grace period).
 */
export function checkState(snap: LicenseSnapshot, now: Date): void {
  if (snap.status === 'revoked') throw new LicenseError('LICENSE_REVOKED');
  if (snap.status === 'suspended') throw new LicenseError('LICENSE_SUSPENDED');
  if (snap.status === 'generated') throw new LicenseError('LICENSE_NOT_ACTIVE');
  // A passed date is expired even before the hourly job has moved the status.
  if (snap.status === 'expired' || (snap.expiresAt !== null && snap.expiresAt.getTime() <= now.getTime())) {
    if (!inGrace(snap, now)) throw new LicenseError('LICENSE_EXPIRED');
  }
}

class LimitReached extends Error {}

type Admission = { outcome: 'known' } | { outcome: 'added'; count: number } | { outcome: 'limit' };

/**
 * Admits an identifier on a license, the database deciding: the activation row is inserted (unique per
 * license and identifier, so the same hwid twice is one row), and only a new row takes a slot, through a
 * conditional UPDATE of the license's count that Postgres serialises on the license row. When no slot is
 * left the transaction rolls back and the new row with it. 20 simultaneous new hwids against max 2: two
 * UPDATEs match, eighteen find the count at 2.
 */
export async function admitIdentifier(
  knex: Knex,
  licenseId: number,
  hash: string,
  hint: string,
  now: Date,
  earlier: readonly string[] = [],
): Promise<Admission> {
  try {
    return await knex.transaction(async (trx) => {
      if (earlier.length > 0) {
        // Recorded under a previous secret (APP_SECRET_PREVIOUS): the same machine, re-keyed under
        // APP_SECRET now, so it outlives that secret's removal (docs/security.md, "Rotating APP_SECRET").
        const rekeyed = await trx('license_activations')
          .whereIn(
            'id',
            trx('license_activations')
              .where('license_id', licenseId)
              .whereIn('identifier', earlier)
              .whereNotExists(
                trx('license_activations')
                  .where({ license_id: licenseId, identifier: hash })
                  .select(trx.raw('1')),
              )
              .select('id')
              .limit(1),
          )
          .update({ identifier: hash, last_seen_at: now });
        if (rekeyed > 0) return { outcome: 'known' } as const;
      }
      const { rows } = await trx.raw<{ rows: { inserted: boolean }[] }>(
        `insert into license_activations (license_id, identifier, hint, last_seen_at, created_at)
         values (?, ?, ?, ?, ?)
         on conflict (license_id, identifier) do update set last_seen_at = excluded.last_seen_at
         returning (xmax = 0) as inserted`,
        [licenseId, hash, hint, now, now],
      );
      if (!rows[0]?.inserted) return { outcome: 'known' } as const;
      const updated = await trx('licenses')
        .where('id', licenseId)
        .where((q) => q.where('max_activations', 0).orWhereRaw('activations_count < max_activations'))
        .update({ activations_count: trx.raw('activations_count + 1'), updated_at: now })
        .returning<{ activations_count: number }[]>('activations_count');
      if (updated.length === 0) throw new LimitReached();
      await recordLicenseEvent(trx, { licenseId, kind: 'activated', actor: 'customer', hint, at: now });
      return { outcome: 'added', count: updated[0]!.activations_count } as const;
    });
  } catch (err) {
    if (err instanceof LimitReached) return { outcome: 'limit' };
    throw err;
  }
}

/**
 * Activations left: `max - current`, never below 0, and 0 when `max` is 0 (unlimited): always an integer,
 * read together with `max` (the operator contract, docs/operations.md).
 */
export function remainingActivations(max: number, current: number): number {
  return max === 0 ? 0 : Math.max(0, max - current);
}

export function buildResult(
  snap: Omit<LicenseSnapshot, 'known'>,
  locale: LicenseLocale,
  now: Date,
): LicenseResult {
  const duration: DurationKey = snap.duration ?? (snap.expiresAt ? 'custom' : 'lifetime');
  const start = snap.startsAt ?? snap.createdAt;
  const current = snap.lockType === 'none' ? 0 : snap.activationsCount;
  const grace = inGrace(snap, now);
  return {
    status: grace ? 'grace' : 'active',
    lock_type: snap.lockType,
    product: { id: snap.productId, name: snap.productName },
    plan: {
      duration,
      duration_label: durationLabel(duration, locale),
      start_date: dayMonthYear(start),
      end_date: snap.expiresAt ? dayMonthYear(snap.expiresAt) : null,
      is_active: true,
    },
    expires_at: snap.expiresAt ? snap.expiresAt.toISOString() : null,
    expires_in_days: snap.expiresAt
      ? Math.max(0, Math.ceil((snap.expiresAt.getTime() - now.getTime()) / DAY_MS))
      : null,
    activations: {
      current,
      max: snap.maxActivations,
      remaining: remainingActivations(snap.maxActivations, current),
    },
    metadata: snap.metadata ?? null,
    entitlements: snap.features,
    not_before: snap.notBefore,
    grace_ends_at: grace ? graceEnd(snap)!.toISOString() : null,
    checkin_days: snap.checkinDays,
  };
}

/**
 * Verifies a license key for a product. A repeated verify of an unchanged license is answered from this
 * process's memory after one Redis round trip (cache.ts); a new hardware id or IP goes to Postgres.
 */
export async function verifyLicense(deps: VerifyDeps, req: VerifyRequest): Promise<LicenseResult> {
  const now = req.now ?? new Date();
  const key = normalizeLicenseKey(req.licenseKey);
  const cacheKey = `${req.productId}|${key}`;
  const cache = deps.caches.of<LicenseSnapshot>('license-snapshots');

  // The stamp is read BEFORE Postgres: a change that commits after the read bumps it after committing.
  // Without Redis nothing is cached and every verify reads Postgres.
  const stamp = await readStamp(deps, { productId: req.productId, licenseKey: key }).catch(() => null);
  let snap = stamp === null ? undefined : cache.get(cacheKey, stamp);
  if (!snap) {
    // Concurrent misses of one license share one read (and so one snapshot, whose known identifiers
    // they then share): a busy key whose entry expires costs one query, not one per request in flight.
    const loaded = await deps.caches.once(`license-load|${cacheKey}|${stamp}`, async () => {
      const read = await loadSnapshot(deps.knex, req.productId, req.licenseKey.trim());
      if (read && stamp !== null) cache.set(cacheKey, stamp, read);
      return read;
    });
    if (!loaded) throw new LicenseError('LICENSE_NOT_FOUND');
    snap = loaded;
  }

  checkState(snap, now);

  // A floating license's machines hold seats through POST /verify/heartbeat, not activations.
  if (snap.lockType !== 'none' && !snap.floating) {
    const raw = snap.lockType === 'hwid' ? (req.hwid ?? '').trim() : normalizeIp(req.ip);
    if (raw === '') throw new LicenseError('HWID_REQUIRED');
    const lockType = snap.lockType;
    const hashes = identifierHashes(deps, lockType, raw);
    const hash = hashes[0]!;
    if (!snap.known.has(hash)) {
      const licenseId = snap.id;
      const admission = await deps.caches.once(`license-admit|${licenseId}|${hash}|${stamp}`, () =>
        admitIdentifier(deps.knex, licenseId, hash, identifierHint(lockType, raw), now, hashes.slice(1)),
      );
      if (admission.outcome === 'limit') {
        throw new LicenseError('ACTIVATION_LIMIT_REACHED', {});
      }
      if (admission.outcome === 'added') {
        // Other processes' snapshots hold the old count: move the license's counter.
        await noteLicensesChangedSafely(deps, [snap.key]);
        return buildResult({ ...snap, activationsCount: admission.count }, req.locale, now);
      }
      snap.known.add(hash);
    }
  }
  return buildResult(snap, req.locale, now);
}
