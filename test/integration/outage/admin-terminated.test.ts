import { expect } from 'chai';
import type { Knex } from 'knex';
import { ORDER_STATUS, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { enqueue } from '../../../shared/queues';
import { createOrderFromCheckout } from '../../../shared/services/orders';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { insertPaidPayment } from '../payments/support';
import { waitFor } from '../queues/support';

/**
 * A fulfilment job whose query is cut by an administrator (pg_terminate_backend: SQLSTATE 57P01, which
 * Objection hands on as a DBError with neither code nor cause) is deferred without spending one of its
 * attempts, and completes once the database answers again.
 */
describe('outages: a job meets an admin-terminated connection', function () {
  this.timeout(30_000);
  let deps: Deps;
  let pool: WorkerPool | null = null;
  let store: Store;
  let product: Product;

  before(async () => {
    deps = await isolatedDeps({ TRANSIENT_RETRY_MAX_DELAY_MS: '300' });
    store = await createStore({ name: 'Terminated Store' });
    product = await createProduct(store, { name: 'Service', type: 'service', price_minor: 2_000 });
  });

  after(async () => {
    await pool?.close(500);
  });

  it('defers the job without spending an attempt, then completes it', async () => {
    const { checkout } = await insertCheckout(store, product, { quantity: 1 });
    const payment = await insertPaidPayment(checkout);
    const { order } = await deps.tx((uow) =>
      createOrderFromCheckout(uow, checkout.id, {
        status: ORDER_STATUS.IN_PROGRESS,
        paymentId: payment.id,
        paymentMethod: 'card',
      }),
    );
    // The job's first query (the order, by id) waits behind this lock, on a backend the test then ends.
    const blocker: Knex.Transaction = await deps.knex.transaction();
    await blocker.raw('lock table orders in access exclusive mode');
    const jobId = `admin-terminated-${order.id}`;
    await enqueue(deps.queues, 'fulfilment', { orderId: order.id, event: 'paid' }, { jobId });
    pool = await WorkerPool.start(deps, { registry: processors, queues: ['fulfilment'] });

    const blockerPid = (await blocker.raw('select pg_backend_pid() as pid')).rows[0].pid as number;
    const waiting = await waitFor('the job waiting on the lock', async () => {
      const { rows } = await deps.knex.raw(
        `select pid from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and pid <> ? and query ilike '%orders%'`,
        [blockerPid],
      );
      return rows.length > 0 ? (rows as { pid: number }[]) : undefined;
    });
    for (const { pid } of waiting) await deps.knex.raw('select pg_terminate_backend(?)', [pid]);
    await blocker.commit();

    const job = await waitFor('the job completed', async () => {
      const j = await deps.queues.fulfilment.getJob(jobId);
      return j && (await j.isCompleted()) ? j : undefined;
    });
    // Started twice or more (the terminated run, then the one that completed); BullMQ counts only the
    // completing run as made: the terminated one was a deferral, and it left no failure behind.
    expect(job.attemptsStarted).to.be.at.least(2);
    expect(job.attemptsMade).to.equal(1);
    expect(job.stacktrace).to.deep.equal([]);
    expect(job.failedReason ?? '').to.equal('');
    expect(await deps.queues.fulfilment.getFailedCount()).to.equal(0);
    expect((job.returnvalue as { orderId: number }).orderId).to.equal(order.id);
  });
});
