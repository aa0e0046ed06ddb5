import type { Knex } from 'knex';
import type { Config } from '../../config';
import { RateLimitedError } from '../../errors';

/**
 * How many unpaid checkouts may hold keys, stock units or coupon uses at once in one store for one client
 * address (CHECKOUT_HOLDS_PER_IP) and for one buyer phone (CHECKOUT_HOLDS_PER_PHONE). max_per_order bounds
 * one checkout; this bounds how many a client keeps open, so nobody can lock a store's stock up by opening
 * checkouts and never paying. A checkout counts while it is unpaid, unexpired and holds something; paying,
 * expiring or being cancelled frees its place.
 *
 * Checked inside the checkout's transaction after its own reservation, under a transaction-scoped
 * advisory lock per address and per phone, so simultaneous checkouts cannot all slip under the cap.
 * Beyond it: 429 (RATE_LIMITED) with `retry_after`, the seconds until the oldest of them expires.
 * Off (0) for a dimension, for checkouts a merchant opens (Merchant API), and where every rate limit is off.
 */
export const HOLDS_MESSAGE = {
  ip: 'Too many unpaid checkouts from your connection are holding items in this store. Pay for one or wait until one expires.',
  phone:
    'Too many unpaid checkouts for this phone number are holding items in this store. Pay for one or wait until one expires.',
} as const;

export interface HoldsContext {
  storeId: number;
  clientIp: string | null;
  countryCode: string;
  phone: string;
  checkoutId: number;
}

export async function assertHoldsWithinCap(
  trx: Knex.Transaction,
  config: Pick<Config, 'checkoutHoldsPerIp' | 'checkoutHoldsPerPhone' | 'rateLimitsEnabled'>,
  ctx: HoldsContext,
  now: Date = new Date(),
): Promise<void> {
  if (!config.rateLimitsEnabled) return;
  const checks: { kind: 'ip' | 'phone'; cap: number; lockKey: string; where: Record<string, unknown> }[] = [];
  if (config.checkoutHoldsPerIp > 0 && ctx.clientIp) {
    checks.push({
      kind: 'ip',
      cap: config.checkoutHoldsPerIp,
      lockKey: `checkout-holds:${ctx.storeId}:ip:${ctx.clientIp}`,
      where: { client_ip: ctx.clientIp },
    });
  }
  if (config.checkoutHoldsPerPhone > 0) {
    checks.push({
      kind: 'phone',
      cap: config.checkoutHoldsPerPhone,
      lockKey: `checkout-holds:${ctx.storeId}:phone:${ctx.countryCode}${ctx.phone}`,
      where: { customer_country_code: ctx.countryCode, customer_phone: ctx.phone },
    });
  }
  // Locks in one fixed order (ip, then phone), so two checkouts never wait on each other crosswise.
  for (const check of checks) {
    await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [check.lockKey]);
  }
  for (const check of checks) {
    const rows = await trx('checkouts')
      .where('store_id', ctx.storeId)
      .where(check.where)
      .whereIn('status', ['created', 'payment_initiated'])
      .where((q) => q.where('reserved', true).orWhere('coupon_reserved', true))
      .where('expires_at', '>', now)
      .whereNot('id', ctx.checkoutId)
      .orderBy('expires_at')
      .limit(check.cap)
      .select<{ expires_at: Date }[]>('expires_at');
    if (rows.length >= check.cap) {
      const oldest = new Date(rows[0]!.expires_at).getTime();
      throw new RateLimitedError(
        Math.max(1, Math.ceil((oldest - now.getTime()) / 1000)),
        HOLDS_MESSAGE[check.kind],
      );
    }
  }
}
