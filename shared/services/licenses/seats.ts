import { InvalidError } from '../../errors';
import { LicenseError } from './errors';
import { identifierHashes, identifierHint } from './identifiers';
import {
  buildResult,
  checkState,
  loadSnapshot,
  type LicenseResult,
  type VerifyDeps,
  type VerifyRequest,
} from './verify';

/**
 * Floating seats (docs/license.md, "Floating seats"). A product whose license policy is `floating` lends each
 * license's `max_activations` out as seats: POST /verify/heartbeat takes a seat for the machine (its hwid) or
 * keeps it, and the seat lasts `heartbeat_seconds` from the last beat. A seat past its time is free: a machine
 * that died gives its seat back after the interval without anyone releasing it.
 *
 * Postgres decides who sits: each heartbeat locks the license row (FOR UPDATE), so the beats of one license
 * run one after another; inside, expired seats are cleared, the machine's own seat is extended, or a new seat
 * is taken only while fewer than `max` are live. 20 machines against 5 seats: 5 sit, 15 are refused.
 */

export interface SeatRequest extends VerifyRequest {
  /** Give the seat back now (the program is closing). */
  release?: boolean;
}

export interface HeartbeatResult extends LicenseResult {
  seat: {
    /** False after a release. */
    held: boolean;
    /** When the seat is freed unless another heartbeat arrives first; null after a release. */
    expires_at: string | null;
    /** When to beat next: half the interval, so one lost beat does not cost the seat. */
    next_heartbeat_at: string | null;
    heartbeat_seconds: number;
    /** Live seats of the license, this one included. */
    used: number;
    /** 0: unlimited. */
    max: number;
  };
}

class NoSeat extends Error {}

export async function heartbeat(deps: VerifyDeps, req: SeatRequest): Promise<HeartbeatResult> {
  const now = req.now ?? new Date();
  const snap = await loadSnapshot(deps.knex, req.productId, req.licenseKey.trim());
  if (!snap) throw new LicenseError('LICENSE_NOT_FOUND');
  checkState(snap, now);
  if (!snap.floating) throw new InvalidError('This product’s licenses are not floating: use POST /verify');
  const raw = (req.hwid ?? '').trim();
  if (raw === '') throw new LicenseError('HWID_REQUIRED');
  const hashes = identifierHashes(deps, 'hwid', raw);
  const hash = hashes[0]!;
  const expiresAt = new Date(now.getTime() + snap.heartbeatSeconds * 1000);

  let used: number;
  try {
    used = await deps.knex.transaction(async (trx) => {
      await trx('licenses').where({ id: snap.id }).forUpdate().first('id');
      await trx('license_seats').where('license_id', snap.id).where('expires_at', '<=', now).delete();
      // A seat taken before a rotation is still this machine's (docs/security.md, "Rotating APP_SECRET").
      const own = trx('license_seats').where({ license_id: snap.id }).whereIn('identifier', hashes);
      if (req.release) {
        await own.delete();
      } else {
        const kept = await own.clone().update({ expires_at: expiresAt });
        if (kept === 0) {
          const [{ n }] = await trx('license_seats')
            .where('license_id', snap.id)
            .count<{ n: string }[]>('* as n');
          if (snap.maxActivations > 0 && Number(n) >= snap.maxActivations) throw new NoSeat();
          await trx('license_seats').insert({
            license_id: snap.id,
            identifier: hash,
            hint: identifierHint('hwid', raw),
            expires_at: expiresAt,
            created_at: now,
          });
        }
      }
      const [{ n }] = await trx('license_seats')
        .where('license_id', snap.id)
        .count<{ n: string }[]>('* as n');
      return Number(n);
    });
  } catch (err) {
    if (err instanceof NoSeat) throw new LicenseError('ACTIVATION_LIMIT_REACHED');
    throw err;
  }
  const held = !req.release;
  return {
    ...buildResult({ ...snap, activationsCount: used }, req.locale, now),
    seat: {
      held,
      expires_at: held ? expiresAt.toISOString() : null,
      next_heartbeat_at: held
        ? new Date(now.getTime() + Math.floor((snap.heartbeatSeconds * 1000) / 2)).toISOString()
        : null,
      heartbeat_seconds: snap.heartbeatSeconds,
      used,
      max: snap.maxActivations,
    },
  };
}
