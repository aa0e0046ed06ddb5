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
 *
 * A certificate minted for a seat (certificate.ts) leases it: the seat's `certified_until` is at least the
 * certificate's `exp`, and neither a release nor a shorter heartbeat frees the seat before then, so the
 * certificates valid offline never outnumber the seats. Each certificate and each release moves the seat's
 * `generation`; a certificate handed in on a heartbeat whose `seat` claim is not the machine's seat at its
 * current generation is refused (`CERTIFICATE_VOID`).
 */

export interface SeatRequest extends VerifyRequest {
  /** Give the seat back now (the program is closing). */
  release?: boolean;
  /**
   * The certificate (JWS) the machine holds, handed in on its heartbeat: refused with `CERTIFICATE_VOID`
   * unless its `seat` claim names the seat this machine holds now, at its current generation.
   */
  certificate?: CertificateView | null;
  /** Mint a certificate for the seat (certificate.ts): a new generation, and the seat leased until its end. */
  certify?: boolean;
}

/** What the seat check reads of a presented certificate (certificate.ts checks its signature and binding). */
export interface CertificateView {
  seat: { id: number; generation: number } | null;
}

export interface HeartbeatResult extends LicenseResult {
  seat: {
    /** False after a release. */
    held: boolean;
    /**
     * Held: when the seat is freed unless another heartbeat arrives first. Released: null when the seat
     * is free now, else the end of the certificate minted for it (the seat stays taken until then).
     */
    expires_at: string | null;
    /** When to beat next: half the interval, so one lost beat does not cost the seat. */
    next_heartbeat_at: string | null;
    heartbeat_seconds: number;
    /** Live seats of the license, this one included. */
    used: number;
    /** 0: unlimited. */
    max: number;
    /** The seat's id and generation, as a certificate's `seat` claim names them; null once freed. */
    id: number | null;
    generation: number | null;
  };
}

class NoSeat extends Error {}
class VoidCertificate extends Error {}

interface SeatRow {
  id: string;
  generation: number;
  expires_at: Date;
  certified_until: Date | null;
}

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
  const beatEnd = new Date(now.getTime() + snap.heartbeatSeconds * 1000);

  let outcome: { used: number; seat: SeatRow | null };
  try {
    outcome = await deps.knex.transaction(async (trx) => {
      await trx('licenses').where({ id: snap.id }).forUpdate().first('id');
      await trx('license_seats').where('license_id', snap.id).where('expires_at', '<=', now).delete();
      // A seat taken before a rotation is still this machine's (docs/security.md, "Rotating APP_SECRET").
      const own = trx('license_seats').where({ license_id: snap.id }).whereIn('identifier', hashes);
      const before = await own
        .clone()
        .first<SeatRow | undefined>('id', 'generation', 'expires_at', 'certified_until');
      if (req.certificate) {
        // A certificate of a released (or re-certified, or lapsed) seat is void: its seat is gone or has
        // moved on to a newer generation.
        const claim = req.certificate.seat;
        if (
          !before ||
          !claim ||
          String(claim.id) !== String(before.id) ||
          claim.generation !== before.generation
        )
          throw new VoidCertificate();
      }
      let seat: SeatRow | null;
      if (req.release) {
        const leased = before?.certified_until && before.certified_until.getTime() > now.getTime();
        if (before && leased) {
          // Its certificate stays valid offline until it ends: the seat stays taken until then, and the
          // certificate is void online at once (a new generation).
          [seat] = await own
            .clone()
            .update({ expires_at: before.certified_until, generation: before.generation + 1 })
            .returning<SeatRow[]>(['id', 'generation', 'expires_at', 'certified_until']);
        } else {
          await own.clone().delete();
          seat = null;
        }
      } else {
        if (!before) {
          const [{ n }] = await trx('license_seats')
            .where('license_id', snap.id)
            .count<{ n: string }[]>('* as n');
          if (snap.maxActivations > 0 && Number(n) >= snap.maxActivations) throw new NoSeat();
          await trx('license_seats').insert({
            license_id: snap.id,
            identifier: hash,
            hint: identifierHint('hwid', raw),
            expires_at: beatEnd,
            created_at: now,
          });
        }
        // Never shortened below a certificate minted for it (a shorter interval set since, a re-take after
        // a release): the seat outlives every valid certificate of it.
        const update: Record<string, unknown> = {
          expires_at: trx.raw('greatest(?::timestamptz, certified_until)', [beatEnd]),
        };
        if (req.certify) {
          update.generation = trx.raw('generation + 1');
          update.certified_until = trx.raw('greatest(?::timestamptz, certified_until)', [beatEnd]);
        }
        [seat] = await own
          .clone()
          .update(update)
          .returning<SeatRow[]>(['id', 'generation', 'expires_at', 'certified_until']);
      }
      const [{ n }] = await trx('license_seats')
        .where('license_id', snap.id)
        .count<{ n: string }[]>('* as n');
      return { used: Number(n), seat: seat ?? null };
    });
  } catch (err) {
    if (err instanceof NoSeat) throw new LicenseError('ACTIVATION_LIMIT_REACHED');
    if (err instanceof VoidCertificate) throw new LicenseError('CERTIFICATE_VOID');
    throw err;
  }
  const held = !req.release;
  const { seat, used } = outcome;
  return {
    ...buildResult({ ...snap, activationsCount: used }, req.locale, now),
    seat: {
      held,
      expires_at: seat ? seat.expires_at.toISOString() : null,
      next_heartbeat_at: held
        ? new Date(now.getTime() + Math.floor((snap.heartbeatSeconds * 1000) / 2)).toISOString()
        : null,
      heartbeat_seconds: snap.heartbeatSeconds,
      used,
      max: snap.maxActivations,
      id: seat ? Number(seat.id) : null,
      generation: seat ? seat.generation : null,
    },
  };
}
