import { expect } from 'chai';
import type { Product, Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { createProduct, createStore } from '../helpers/builders';
import { guestCheckout } from '../helpers/checkouts';
import { isolatedDeps } from '../helpers/deps';
import { httpClient, TestServer } from '../helpers/http';
import { browse, guestInitiate, hostedMethod } from '../integration/payments/support';
import { sleep, waitFor } from '../integration/queues/support';
import { Entry, expectOneOrderAndKeyEach, freePort, launch, Running, untilReady } from './support';

/** Checkouts in all; the worker is killed once half of them are paid. */
const CHECKOUTS = 24;
/** Customers going through checkout at the same time. */
const CONCURRENT = 6;
/** A killed worker's jobs are taken over after about two lock durations (BullMQ's stalled-job check). */
const JOB_LOCK_DURATION_MS = '2000';

/**
 * The Procfile's processes scaled out on one Postgres and one Redis prefix, as real child
 * processes: 2 `web`, 3 `worker`, 1 `scheduler`. Guest checkouts paid through the sandbox provider, each
 * step sent to the web process the previous step did not use; one worker is killed with SIGKILL half way.
 * Then: every paid checkout has exactly one order, every order one key sold and delivered in one message,
 * and no job of any queue failed.
 */
describe('scale-out: 2 web and 3 worker processes on one Postgres and Redis, one worker killed', function () {
  this.timeout(120_000);
  let deps: Deps;
  let store: Store;
  let product: Product;
  const running: Running[] = [];
  const webs: TestServer[] = [];
  const workers: Running[] = [];

  before(async () => {
    deps = await isolatedDeps({ JOB_LOCK_DURATION_MS });
    store = await createStore({ name: 'Scale-out Store' });
    await hostedMethod(deps, store, 'card', 'sandbox');
    product = await createProduct(store, { name: 'Game key', type: 'code', price_minor: 1_000 });
    await deps.knex('product_codes').insert(
      Array.from({ length: CHECKOUTS + 4 }, (_, i) => ({
        product_id: product.id,
        code: `SCALE-${store.id}-${String(i).padStart(4, '0')}`,
      })),
    );

    const ports = [await freePort(), await freePort()];
    const env = {
      QUEUE_PREFIX: deps.config.queuePrefix,
      JOB_LOCK_DURATION_MS,
      // Every customer comes from an address of its own (X-Forwarded-For), as behind a load balancer.
      TRUST_PROXY: '1',
      // One public address for the deployment, as a load balancer gives it; the test reaches both.
      PUBLIC_BASE_URL: `http://127.0.0.1:${ports[0]}`,
    };
    const start = async (entry: Entry, extra: NodeJS.ProcessEnv = {}): Promise<Running> => {
      const run = await launch(entry, { ...env, ...extra });
      running.push(run);
      return run;
    };
    const started = await Promise.all([
      ...ports.map((port) => start('web', { PORT: String(port) })),
      start('worker'),
      start('worker'),
      start('worker'),
      start('scheduler'),
    ]);
    const entries: Entry[] = ['web', 'web', 'worker', 'worker', 'worker', 'scheduler'];
    await Promise.all(started.map((run, i) => untilReady(run, entries[i])));
    for (const port of ports) webs.push(httpClient(`http://127.0.0.1:${port}`, deps.config.nodeEnv));
    workers.push(...started.slice(2, 5));
  });

  afterEach(function () {
    // A failure among six processes: what each of them said last.
    if (this.currentTest?.state !== 'failed') return;
    for (const run of running) {
      const { exitCode, signalCode } = run.child;
      console.error(`--- pid ${run.child.pid} (exit ${exitCode ?? signalCode ?? 'running'})`);
      console.error((run.output.stdout + run.output.stderr).slice(-2_000));
    }
  });

  after(async () => {
    await Promise.all(
      running.map(async (run) => {
        if (run.child.exitCode !== null || run.child.signalCode !== null) return;
        run.child.kill('SIGTERM');
        await Promise.race([run.exited, sleep(10_000)]);
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      }),
    );
  });

  function kill9(run: Running): Promise<unknown> {
    run.child.kill('SIGKILL');
    return run.exited;
  }

  /**
   * One customer: checkout on one web process, payment initiated on the other, then Pay on the sandbox's
   * page (the redirect_url) on the first again once a worker has opened the sandbox session (503 until
   * then). Resolves with the checkout id.
   */
  async function customer(i: number): Promise<number> {
    const [a, b] = [webs[i % 2], webs[(i + 1) % 2]];
    const checkout = await guestCheckout(
      a,
      store,
      { product_id: product.id },
      { customer_phone: String(500_300_000 + i) },
    );
    const initiated = await guestInitiate(b, store, checkout.checkoutUrl, 'card');
    expect(initiated.status, initiated.text).to.equal(200);
    const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
    await waitFor(
      `checkout ${i}: the sandbox page to take Pay`,
      async () => {
        const paid = await browse(a, redirectUrl, { outcome: 'paid' });
        if (paid.status === 503) return false;
        expect(paid.status, paid.text).to.equal(200);
        return true;
      },
      30_000,
      100,
    );
    return checkout.checkoutId;
  }

  it('creates every order once, sells and delivers every key once, and fails no job', async () => {
    const ids: number[] = [];
    let next = 0;
    let killed: Promise<unknown> | null = null;
    // CONCURRENT customers at a time; the first worker is killed once half of them have paid.
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        while (next < CHECKOUTS) {
          const i = next;
          next += 1;
          ids.push(await customer(i));
          if (ids.length === CHECKOUTS / 2) killed = kill9(workers[0]);
        }
      }),
    );
    await killed;
    expect(workers[0].child.signalCode).to.equal('SIGKILL');
    expect(ids).to.have.length(CHECKOUTS);

    // The remaining two workers finish everything, including what the killed one held.
    await waitFor(
      'every order delivered',
      async () => {
        const [{ delivered }] = await deps
          .knex('outbound_messages')
          .where({ store_id: store.id, purpose: 'order_delivery' })
          .countDistinct<{ delivered: string }[]>({ delivered: 'to' });
        return Number(delivered) === CHECKOUTS;
      },
      60_000,
      200,
    );

    // Every paid checkout, exactly one order.
    const payments = await deps.knex('payments').whereIn('checkout_id', ids).where({ status: 'paid' });
    expect(new Set(payments.map((p: { checkout_id: number }) => p.checkout_id)).size).to.equal(CHECKOUTS);
    // Every order once, every key once.
    const sold = await expectOneOrderAndKeyEach(deps.knex, ids, product.id, CHECKOUTS);
    // Every key delivered in exactly one message, one message per buyer.
    const deliveries = await deps
      .knex('outbound_messages')
      .where({ store_id: store.id, purpose: 'order_delivery' })
      .select<{ to: string; body: string }[]>('to', 'body');
    expect(deliveries).to.have.length(CHECKOUTS);
    expect(new Set(deliveries.map((m) => m.to)).size).to.equal(CHECKOUTS);
    for (const { code } of sold)
      expect(
        deliveries.filter((m) => m.body.includes(code)),
        code,
      ).to.have.length(1);

    // Nothing left running or waiting (the scheduler's maintenance ticks aside), and no job failed.
    const busy = Object.values(deps.queues).filter((q) => q.name !== 'maintenance');
    await waitFor('the queues to go idle', async () => {
      const counts = await Promise.all(busy.map((q) => q.getJobCounts('waiting', 'prioritized', 'active')));
      return counts.every((c) => c.waiting + c.prioritized + c.active === 0);
    });
    for (const [name, queue] of Object.entries(deps.queues)) {
      expect(await queue.getJobCountByTypes('failed'), `${name}: failed jobs`).to.equal(0);
    }
  });
});
