import type { Knex } from 'knex';
import { Gauge, Registry } from 'prom-client';
import type { Logger } from '../../logger';

/**
 * `checkout_refusals{rule}` on /metrics: checkouts the fraud controls refused, by rule, counted in Postgres
 * on every scrape (refusals happen on every web process; the one serving /metrics holds no counter of its
 * own, so the figure is the platform's, never one process's). `disputes`: orders disputed.
 */
export function registerFraudMetrics(registry: Registry, knex: Knex, logger: Logger): void {
  new Gauge({
    name: 'checkout_refusals',
    help: 'Checkouts refused by a store’s fraud controls (docs/fraud.md), by the rule that matched',
    labelNames: ['rule'],
    registers: [registry],
    async collect() {
      try {
        const rows = await knex('checkout_refusals')
          .groupBy('rule')
          .select('rule')
          .count<{ rule: string; n: string }[]>('* as n');
        this.reset();
        for (const row of rows) this.set({ rule: row.rule }, Number(row.n));
      } catch (err) {
        logger.warn({ error: (err as Error).message }, 'could not count checkout refusals');
      }
    },
  });
  new Gauge({
    name: 'order_disputes',
    help: 'Orders disputed with their payment provider (chargebacks)',
    registers: [registry],
    async collect() {
      try {
        const [row] = await knex('order_disputes').count<{ n: string }[]>('* as n');
        this.set(Number(row?.n ?? 0));
      } catch (err) {
        logger.warn({ error: (err as Error).message }, 'could not count disputes');
      }
    },
  });
}
