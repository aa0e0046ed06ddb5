import type { Knex } from 'knex';
import { Gauge, Registry } from 'prom-client';
import type { Logger } from '../../logger';

/**
 * Subscription figures on /metrics, counted in Postgres on every scrape (the renewals happen on workers;
 * the web process serving /metrics holds no counters of its own):
 * - `subscriptions{status}`: active, past_due, cancelled, expired;
 * - `subscription_renewals_due`: periods that have ended and are not renewed yet (a backlog here means
 *   the scheduler or the `subscriptions` workers are not keeping up);
 * - `subscription_renewal_charges{outcome}`: renewal charges made to saved cards, `renewed` or `failed`.
 */
export interface SubscriptionFigures {
  byStatus: Record<string, number>;
  due: number;
  charges: Record<string, number>;
}

export async function subscriptionFigures(knex: Knex, now: Date = new Date()): Promise<SubscriptionFigures> {
  const [statuses, due, charges] = await Promise.all([
    knex('subscriptions')
      .groupBy('status')
      .select('status')
      .count<{ status: string; count: number }[]>('* as count'),
    knex('subscriptions')
      .whereIn('status', ['active', 'past_due'])
      .where('cancel_at_period_end', false)
      .where('current_period_end', '<=', now)
      .count<{ count: number }[]>('* as count'),
    knex('payments as p')
      .join('checkouts as c', 'c.id', 'p.checkout_id')
      .where('c.source', 'renewal')
      .whereIn('p.status', ['paid', 'failed'])
      .groupBy('p.status')
      .select('p.status')
      .count<{ status: string; count: number }[]>('* as count'),
  ]);
  const byStatus: Record<string, number> = { active: 0, past_due: 0, cancelled: 0, expired: 0 };
  for (const row of statuses) byStatus[row.status] = Number(row.count);
  const outcome: Record<string, number> = { renewed: 0, failed: 0 };
  for (const row of charges) outcome[row.status === 'paid' ? 'renewed' : 'failed'] = Number(row.count);
  return { byStatus, due: Number(due[0]?.count ?? 0), charges: outcome };
}

export function registerSubscriptionMetrics(registry: Registry, knex: Knex, logger: Logger): void {
  // One count per scrape, shared by the three gauges (prom-client collects them together).
  let inflight: Promise<SubscriptionFigures | null> | null = null;
  const read = (): Promise<SubscriptionFigures | null> =>
    (inflight ??= subscriptionFigures(knex)
      .catch((err: Error) => {
        logger.warn({ error: err.message }, 'could not count subscriptions');
        return null;
      })
      .finally(() => {
        inflight = null;
      }));
  new Gauge({
    name: 'subscriptions',
    help: 'Subscriptions by status (active, past_due, cancelled, expired)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [status, n] of Object.entries((await read())?.byStatus ?? {})) this.set({ status }, n);
    },
  });
  new Gauge({
    name: 'subscription_renewals_due',
    help: 'Subscriptions whose period has ended and that are not renewed yet',
    registers: [registry],
    async collect() {
      const figures = await read();
      if (figures) this.set(figures.due);
    },
  });
  new Gauge({
    name: 'subscription_renewal_charges',
    help: 'Renewal charges of saved cards, by outcome (renewed, failed)',
    labelNames: ['outcome'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [outcome, n] of Object.entries((await read())?.charges ?? {})) this.set({ outcome }, n);
    },
  });
}
