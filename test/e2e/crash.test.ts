import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { Payment, Product, Store } from '../../db/models';
import type { Deps } from '../../shared/deps';
import { SandboxGateway, sandboxWebhookKey, signSandboxWebhook } from '../../shared/providers/sandbox';
import { createProduct, createStore } from '../helpers/builders';
import { guestCheckout } from '../helpers/checkouts';
import { isolatedDeps } from '../helpers/deps';
import { startServer, TestServer } from '../helpers/http';
import { randomIp } from '../helpers/otp';
import { guestInitiate, hostedMethod } from '../integration/payments/support';
import { sleep, waitFor } from '../integration/queues/support';
import { expectOneOrderAndKeyEach, launch, untilReady } from './support';

/** Checkouts (each with an OTP sign-in beside it); 100 would take minutes on 2 cores. */
const CHECKOUTS = 12;
/** The worker is killed at least this many times while they are under way. */
const MIN_KILLS = 5;
/** How long the worker keeps being killed at most (beyond MIN_KILLS). */
const KILL_PHASE_MS = 25_000;

/**
 * A real worker process (workers/index.ts) killed with SIGKILL in a loop while
 * checkouts are paid through the sandbox provider (provider session, signed webhook, reconciliation,
 * order, key delivery) and OTPs are sent, with the outbox messaging driver. Once a last worker has
 * finished the work: every checkout has exactly one order, every key is sold once, and no message (OTP
 * or delivery) was sent twice.
 */
describe('crash: worker killed with kill -9 in a loop during checkouts, OTPs and deliveries', function () {
  this.timeout(180_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let worker: ChildProcess | null = null;

  before(async () => {
    // A short job lock, so the jobs of a killed worker are taken over in seconds rather than 30.
    deps = await isolatedDeps({ TRUST_PROXY: '1', JOB_LOCK_DURATION_MS: '1000' });
    server = await startServer(deps);
    store = await createStore({ name: 'Crash Store' });
    await hostedMethod(deps, store, 'card', 'sandbox');
    product = await createProduct(store, { name: 'Game key', type: 'code', price_minor: 1_000 });
    const codes = Array.from({ length: CHECKOUTS + 4 }, (_, i) => ({
      product_id: product.id,
      code: `CRASH-${store.id}-${String(i).padStart(4, '0')}`,
    }));
    await deps.knex('product_codes').insert(codes);
  });

  after(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    await server?.close();
  });

  /** Starts workers/index.ts on this suite's database and queues; resolves once it logged its ready line. */
  async function startWorker(): Promise<ChildProcess> {
    const run = await launch('worker', {
      QUEUE_PREFIX: deps.config.queuePrefix,
      JOB_LOCK_DURATION_MS: '1000',
    });
    await untilReady(run, 'worker');
    return run.child;
  }

  function kill9(child: ChildProcess): Promise<void> {
    return new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /** Signs in by OTP (the message goes out through the worker) and opens a sandbox payment for one key. */
  async function customer(i: number): Promise<number> {
    const otp = await server.request('/api/embed/auth/start', {
      method: 'POST',
      json: { product_id: product.id, country_code: '+966', phone: String(500_100_000 + i) },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(otp.status, otp.text).to.equal(200);
    const checkout = await guestCheckout(
      server,
      store,
      { product_id: product.id },
      { customer_phone: String(500_200_000 + i) },
    );
    const initiated = await guestInitiate(server, store, checkout.checkoutUrl, 'card');
    expect(initiated.status, initiated.text).to.equal(200);
    return checkout.checkoutId;
  }

  /** The customer pays on the sandbox's page once the worker opened the session: its signed webhook arrives. */
  async function pay(gateway: SandboxGateway, providerPaymentId: string): Promise<void> {
    const decision = await gateway.decide(providerPaymentId, 'paid');
    if (decision.kind !== 'decided') throw new Error(`sandbox decision: ${decision.kind}`);
    const raw = JSON.stringify(decision.event);
    const res = await server.request('/webhooks/sandbox', {
      method: 'POST',
      body: raw,
      headers: {
        'Content-Type': 'application/json',
        'X-Sandbox-Signature': signSandboxWebhook(sandboxWebhookKey(deps.appSecret), raw),
      },
    });
    expect(res.status, res.text).to.equal(200);
  }

  it('creates every order once, sells every key once and sends no message twice', async () => {
    const gateway = new SandboxGateway(deps.knex, deps.appSecret, deps.logger, { retryDelaysMs: [] });
    const ids: number[] = [];
    for (let i = 0; i < CHECKOUTS; i += 4) {
      const batch = [0, 1, 2, 3].filter((k) => i + k < CHECKOUTS).map((k) => customer(i + k));
      ids.push(...(await Promise.all(batch)));
    }

    // Workers started and killed in a loop while the customers pay as soon as their sessions exist.
    let kills = 0;
    const paying = { settled: false };
    const paid = new Set<number>();
    // Killing stops after MIN_KILLS once everyone paid or KILL_PHASE_MS passed; then a last worker, left
    // alone, finishes what the killed ones left (on a loaded machine the kill phase may not see it all).
    const killUntil = Date.now() + KILL_PHASE_MS;
    const killer = (async () => {
      while (kills < MIN_KILLS || (!paying.settled && Date.now() < killUntil)) {
        worker = await startWorker();
        // Killed at a random point of its work: mid-job, mid-transaction, between a send and its record.
        // Some live past the stalled-job check (two lock durations), so killed jobs are taken over.
        await sleep(500 + Math.floor(Math.random() * 3_000));
        await kill9(worker);
        kills += 1;
      }
    })();
    // The payer gives up 90 s after the last worker started (a loaded machine starts workers slowly).
    const pay_ = { deadline: Date.now() + 90_000 + KILL_PHASE_MS };
    const payer = (async () => {
      while (paid.size < CHECKOUTS && Date.now() < pay_.deadline) {
        const opened = await Payment.query(deps.knex)
          .whereIn('checkout_id', ids)
          .whereNotNull('provider_payment_id');
        for (const p of opened) {
          if (paid.has(p.id)) continue;
          await pay(gateway, p.provider_payment_id as string);
          paid.add(p.id);
        }
        await sleep(200);
      }
    })().finally(() => {
      paying.settled = true;
    });
    await killer;
    worker = await startWorker();
    pay_.deadline = Math.max(pay_.deadline, Date.now() + 90_000);
    await payer;
    expect(paid.size).to.equal(CHECKOUTS);

    await waitFor(
      'every order delivered and every OTP sent',
      async () => {
        const [{ delivered }] = await deps
          .knex('order_items')
          .join('orders', 'orders.id', 'order_items.order_id')
          .whereIn('orders.checkout_id', ids)
          .whereNotNull('order_items.delivered_at')
          .count<{ delivered: string }[]>({ delivered: '*' });
        const [{ otps }] = await deps
          .knex('outbound_messages')
          .where({ store_id: store.id, purpose: 'otp' })
          .countDistinct<{ otps: string }[]>({ otps: 'to' });
        return Number(delivered) === CHECKOUTS && Number(otps) === CHECKOUTS;
      },
      60_000,
      200,
    );

    // Every order once, every key once: one per order, none sold twice, the rest still on sale.
    const sold = await expectOneOrderAndKeyEach(deps.knex, ids, product.id, CHECKOUTS);
    // No message twice: one OTP per phone, one delivery per buyer, and each delivered key in one message.
    const messages = await deps
      .knex('outbound_messages')
      .where({ store_id: store.id })
      .select<{ to: string; purpose: string; body: string }[]>('to', 'purpose', 'body');
    const perRecipient = new Map<string, number>();
    for (const m of messages)
      perRecipient.set(`${m.purpose}:${m.to}`, (perRecipient.get(`${m.purpose}:${m.to}`) ?? 0) + 1);
    const twice = [...perRecipient].filter(([, n]) => n > 1);
    expect(twice, `sent more than once: ${JSON.stringify(twice)}`).to.deep.equal([]);
    expect(messages.filter((m) => m.purpose === 'otp')).to.have.length(CHECKOUTS);
    const deliveries = messages.filter((m) => m.purpose === 'order_delivery');
    expect(deliveries).to.have.length(CHECKOUTS);
    for (const { code } of sold) {
      expect(
        deliveries.filter((m) => m.body.includes(code)),
        code,
      ).to.have.length(1);
    }
    expect(kills).to.be.at.least(MIN_KILLS);
  });
});
