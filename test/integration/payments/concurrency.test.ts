import { expect } from 'chai';
import type { Knex } from 'knex';
import { Coupon, Order, OrderItem, Payment, PaymentEvent, Product, Store } from '../../../db/models';
import {
  sandboxWebhookKey,
  SANDBOX_SIGNATURE_HEADER,
  SandboxGateway,
  SandboxEvent,
  signSandboxWebhook,
} from '../../../shared/providers/sandbox';
import { sweepPayments } from '../../../shared/services/payments';
import type { WorkerPool } from '../../../workers/worker-pool';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout, OpenedCheckout } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import { createCoupon } from '../checkout/support';
import {
  guestInitiate,
  hostedMethod,
  paymentIdOf,
  sessionOf,
  startWorkers,
  usePaymentsSuite,
  waitFor,
} from './support';

/**
 * Exactly-once orders under duplicates and crashes: whatever arrives how many times, and wherever a worker
 * dies, a checkout gets one order, its coupon one use and each unit one key.
 */
describe('payments: duplicates, races and crashes', function () {
  this.timeout(60_000);
  // Workers are started per test: each one wires its own failure points.
  const suite = usePaymentsSuite({ workers: false });
  let store: Store;
  let product: Product;
  let coupon: Coupon;

  beforeEach(async () => {
    store = await createStore();
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, {
      type: 'code',
      price_minor: 3_000,
      license_enabled: true,
      license_prefix: 'RACE',
    });
    await suite.deps
      .knex('product_codes')
      .insert(['A', 'B', 'C', 'D'].map((x) => ({ product_id: product.id, code: `RACE-${store.id}-${x}` })));
    coupon = await createCoupon(store, { type: 'percentage', amount: 1_000, max_uses: 5 });
  });

  /** A checkout of 2 units with the coupon, initiated by card, its sandbox session open. */
  async function initiated(): Promise<{ checkout: OpenedCheckout; paymentId: number; sandboxId: string }> {
    const checkout = await guestCheckout(suite.server, store, {
      product_id: product.id,
      quantity: 2,
      coupon_code: coupon.code,
    });
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    const paymentId = paymentIdOf((res.body.data as { redirect_url: string }).redirect_url);
    const payment = await sessionOf(paymentId);
    return { checkout, paymentId, sandboxId: payment.provider_payment_id ?? '' };
  }

  /** The customer pays on the sandbox; returns the signed event the sandbox would deliver. */
  async function paidEvent(sandboxId: string): Promise<SandboxEvent> {
    const decision = await new SandboxGateway(
      suite.deps.knex,
      suite.deps.appSecret,
      suite.deps.logger,
    ).decide(sandboxId, 'paid');
    if (decision.kind !== 'decided') throw new Error('sandbox payment not decided');
    return decision.event;
  }

  function deliver(event: SandboxEvent) {
    const raw = JSON.stringify(event);
    return suite.server.request('/webhooks/sandbox', {
      method: 'POST',
      body: raw,
      headers: {
        'Content-Type': 'application/json',
        [SANDBOX_SIGNATURE_HEADER]: signSandboxWebhook(sandboxWebhookKey(suite.deps.appSecret), raw),
        'X-Forwarded-For': randomIp(),
      },
    });
  }

  async function expectExactlyOnce(checkoutId: number, paymentId: number): Promise<Order> {
    const orders = await Order.query().where('checkout_id', checkoutId);
    expect(orders, 'one order').to.have.length(1);
    const [order] = orders;
    expect(order.payment_id).to.equal(paymentId);
    expect((await Coupon.query().findById(coupon.id))?.uses_count, 'one coupon use').to.equal(1);
    expect(
      await suite.deps.knex('coupon_uses').where('coupon_id', coupon.id).pluck('order_id'),
    ).to.deep.equal([order.id]);
    const [item] = await OrderItem.query().where('order_id', order.id);
    const codes = await suite.deps.knex('product_codes').where({ product_id: product.id, status: 'sold' });
    expect(
      codes.map((c: { order_item_id: number }) => c.order_item_id),
      'one code per unit',
    ).to.deep.equal([item.id, item.id]);
    const licenses = await waitFor('two licenses', async () => {
      const rows = await suite.deps.knex('licenses').where('order_id', order.id).orderBy('unit');
      return rows.length >= 2 && rows.every((r: { status: string }) => r.status === 'active')
        ? rows
        : undefined;
    });
    expect(
      licenses.map((l: { unit: number }) => l.unit),
      'one license per unit',
    ).to.deep.equal([1, 2]);
    const paid = await PaymentEvent.query().where({ payment_id: paymentId, to_status: 'paid' });
    expect(paid, 'one paid transition').to.have.length(1);
    return order;
  }

  it('50 simultaneous duplicate webhooks plus a sweep give one order, one coupon use and one key per unit', async () => {
    const workers = await startWorkers(suite.deps);
    try {
      const { checkout, paymentId, sandboxId } = await initiated();
      const event = await paidEvent(sandboxId);
      // 40 deliveries of the same event and 10 re-sent under new event ids, all at once, with a sweep.
      const deliveries = Array.from({ length: 50 }, (_, i) =>
        i < 40 ? event : { ...event, id: `${event.id}-resend-${i}` },
      );
      const later = new Date(Date.now() + 10 * 60_000);
      const [answers] = await Promise.all([
        Promise.all(deliveries.map((e) => deliver(e))),
        sweepPayments(suite.deps.knex, later, { queues: suite.deps.queues }),
      ]);
      expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(200));
      expect(answers.filter((a) => a.body.status === 'queued')).to.have.length(11);

      await waitFor('the order', async () => Order.query().findOne({ checkout_id: checkout.checkoutId }));
      await waitFor('the 11 events to be processed', async () => {
        const open = await suite.deps
          .knex('webhook_events')
          .where('provider', 'sandbox')
          .where('event_id', 'like', `${event.id}%`)
          .whereNull('processed_at');
        return open.length === 0;
      });
      const sweepJob = `payment-reconcile-${paymentId}-sweep-${Math.floor(later.getTime() / 60_000)}`;
      await waitFor('the sweep’s reconciliation', async () => {
        const job = await suite.deps.queues.payments.getJob(sweepJob);
        return (await job?.getState()) === 'completed';
      });
      const order = await expectExactlyOnce(checkout.checkoutId, paymentId);
      const stored = await suite.deps
        .knex('webhook_events')
        .where('provider', 'sandbox')
        .where('event_id', 'like', `${event.id}%`);
      expect(stored).to.have.length(11);
      // The receiver keeps the payment it verified each event against; the worker does not look it up again.
      expect(stored.map((e: { payment_id: number }) => e.payment_id)).to.deep.equal(
        Array(11).fill(paymentId),
      );
      const delivered = await waitFor('one delivery message', async () => {
        const out = await suite.server.request('/__dev/outbox?to=966500009001');
        const mine = (out.body.messages as { body: string }[]).filter((m) =>
          m.body.includes(`#${order.number} `),
        );
        return mine.length > 0 ? mine : undefined;
      });
      expect(delivered).to.have.length(1);
    } finally {
      await workers.close(1_000);
    }
  });

  it('a reconciliation whose database connection is killed after the order insert completes on retry, once', async () => {
    let kills = 0;
    const workers = await startWorkers(suite.deps, {
      hooks: {
        async afterOrder(_order, trx: Knex.Transaction) {
          if (kills > 0) return;
          kills += 1;
          // The connection dies mid-transaction, as when a worker's host goes away: Postgres rolls back.
          await trx.raw('select pg_terminate_backend(pg_backend_pid())');
        },
      },
    });
    try {
      const { checkout, paymentId, sandboxId } = await initiated();
      await deliver(await paidEvent(sandboxId));
      await waitFor(
        'the order after the retry',
        async () => Order.query().findOne({ checkout_id: checkout.checkoutId }),
        20_000,
      );
      expect(kills).to.equal(1);
      await expectExactlyOnce(checkout.checkoutId, paymentId);
      const job = (await suite.deps.queues.payments.getJobs(['completed'])).find(
        (j) => j.data.kind === 'webhook',
      );
      expect(job?.attemptsMade, 'the first attempt failed, the second completed').to.be.at.least(1);
    } finally {
      await workers.close(1_000);
    }
  });

  it('a worker stopped in the middle of reconciliation: its transaction dies with it, another worker completes the order once', async () => {
    let backendPid: number | null = null;
    let first: WorkerPool | null = await startWorkers(suite.deps, {
      hooks: {
        async afterOrder(_order, trx: Knex.Transaction) {
          if (backendPid !== null) return;
          const { rows } = await trx.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid');
          backendPid = rows[0].pid;
          // Hangs with the order written but not committed, until the process "dies".
          await trx.raw('select pg_sleep(60)');
        },
      },
    });
    try {
      const { checkout, paymentId, sandboxId } = await initiated();
      await deliver(await paidEvent(sandboxId));
      await waitFor('reconciliation to be mid-transaction', async () => backendPid !== null, 15_000);
      expect(await Order.query().findOne({ checkout_id: checkout.checkoutId }), 'uncommitted').to.equal(
        undefined,
      );

      // The worker goes away: its job goes back to the queue and its open transaction is rolled back.
      const { handedBack } = await first.close(300);
      first = null;
      expect(handedBack).to.be.at.least(1);
      await suite.deps.knex.raw('select pg_terminate_backend(?)', [backendPid]);

      const second = await startWorkers(suite.deps);
      try {
        await waitFor(
          'the order from the second worker',
          async () => Order.query().findOne({ checkout_id: checkout.checkoutId }),
          20_000,
        );
        await expectExactlyOnce(checkout.checkoutId, paymentId);
        expect((await Payment.query().findById(paymentId))?.status).to.equal('paid');
      } finally {
        await second.close(1_000);
      }
    } finally {
      await first?.close(300);
    }
  });
});
