import type { Knex } from 'knex';
import { formatMoney } from '../../money';
import { fraudSettingsOf } from './settings';

/**
 * The review rules (docs/fraud.md, "Review queue"), judged once per order, when its payment is confirmed
 * (payments/reconcile.ts): a paid order that matches one waits in Under review (2) with nothing delivered,
 * until the merchant approves it (to 4: delivered) or refunds it. Every paid order gets its risk score and
 * reasons (`order_risk`), shown on the dashboard's order page.
 */

export interface RiskReason {
  code: 'first_purchase' | 'review_above' | 'buyers_per_ip';
  /** Plain words for the merchant, in English; the dashboard translates by `code`. */
  detail: string;
  points: number;
  /** This reason alone holds the order for review. */
  holds: boolean;
}

export interface RiskAssessment {
  score: number;
  reasons: RiskReason[];
  held: boolean;
}

interface PaidOrder {
  id: number;
  source: string;
  store_id: number;
  checkout_id: number | null;
  total_minor: number | string;
  currency: string;
  customer_email: string;
  customer_phone: string;
  customer_country_code: string;
}

const HOUR_MS = 3600 * 1000;

/** Scores the order and records it (once per order); the caller moves it to Under review when `held`. */
export async function assessPaidOrder(
  trx: Knex.Transaction,
  order: PaidOrder,
  now: Date = new Date(),
): Promise<RiskAssessment> {
  // A subscription's renewal is the buyer's standing agreement, not a new purchase: never held.
  if (order.source === 'renewal') return { score: 0, reasons: [], held: false };
  const settings = await fraudSettingsOf(trx, order.store_id);
  const reasons: RiskReason[] = [];
  const total = Number(order.total_minor);

  const earlier = await trx('orders as o')
    .where('o.store_id', order.store_id)
    .whereNot('o.id', order.id)
    .whereIn('o.status', [3, 4])
    .where((w) => {
      w.where({
        'o.customer_phone': order.customer_phone,
        'o.customer_country_code': order.customer_country_code,
      });
      if (order.customer_email.includes('@')) {
        w.orWhereRaw('lower(o.customer_email) = ?', [order.customer_email.trim().toLowerCase()]);
      }
    })
    .first('o.id');
  const firstPurchase = !earlier;
  if (firstPurchase) {
    reasons.push({
      code: 'first_purchase',
      detail: 'First paid order of this buyer in the store',
      points: 20,
      holds: false,
    });
    const above = settings.review_above_minor;
    if (above !== null && total > above) {
      reasons.push({
        code: 'review_above',
        detail: `A first order of ${formatMoney(total, order.currency)} ${order.currency}, above ${formatMoney(above, order.currency)}`,
        points: 50,
        holds: true,
      });
    }
  }

  const perIp = settings.review_buyers_per_ip_per_hour;
  const checkout = order.checkout_id
    ? await trx('checkouts')
        .where('id', order.checkout_id)
        .first<{ client_ip: string | null } | undefined>('client_ip')
    : undefined;
  const ip = checkout?.client_ip ?? null;
  if (perIp !== null && ip) {
    const row = await trx('checkouts')
      .where({ store_id: order.store_id, client_ip: ip })
      .where('created_at', '>', new Date(now.getTime() - HOUR_MS))
      .countDistinct<{ n: string }[]>({ n: trx.raw("customer_country_code || ':' || customer_phone") });
    const buyers = Number(row[0]?.n ?? 0);
    if (buyers >= perIp) {
      reasons.push({
        code: 'buyers_per_ip',
        detail: `${buyers} buyers checked out from ${ip} in the last hour`,
        points: 40,
        holds: true,
      });
    }
  }

  const assessment: RiskAssessment = {
    score: Math.min(
      100,
      reasons.reduce((sum, r) => sum + r.points, 0),
    ),
    reasons,
    held: reasons.some((r) => r.holds),
  };
  await trx('order_risk')
    .insert({
      order_id: order.id,
      store_id: order.store_id,
      score: assessment.score,
      reasons: JSON.stringify(reasons),
      held: assessment.held,
    })
    .onConflict('order_id')
    .ignore();
  return assessment;
}

export interface OrderRiskView {
  score: number;
  held: boolean;
  reasons: { code: string; detail: string; points: number }[];
}

export async function orderRisk(knex: Knex, storeId: number, orderId: number): Promise<OrderRiskView | null> {
  const row = await knex('order_risk')
    .where({ store_id: storeId, order_id: orderId })
    .first<{ score: number; held: boolean; reasons: RiskReason[] } | undefined>();
  if (!row) return null;
  return {
    score: Number(row.score),
    held: row.held,
    reasons: row.reasons.map((r) => ({ code: r.code, detail: r.detail, points: r.points })),
  };
}
