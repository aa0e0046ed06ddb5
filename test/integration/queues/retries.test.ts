import { expect } from 'chai';
import type { Job } from 'bullmq';
import net from 'node:net';
import { Model } from 'objection';
import { ORDER_STATUS, Order, OtpSession, Payment, Product, Store } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { enqueue, JobPayloads, QueueName } from '../../../shared/queues';
import { PROVIDER_UNAVAILABLE_MESSAGE } from '../../../shared/services/payments/session';
import { createOrderFromCheckout } from '../../../shared/services/orders';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout, insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { testDatabaseUrl } from '../../helpers/env';
import { FakeMoyasar } from '../../helpers/fake-moyasar';
import { FakeTwilio } from '../../helpers/fake-twilio';
import { startServer, TestServer } from '../../helpers/http';
import { embedClient } from '../../helpers/otp';
import { guestInitiate, hostedMethod, insertPaidPayment, paymentIdOf } from '../payments/support';
import { waitFor } from './support';

const SECRET_KEY = 'sk_test_retries';

/**
 * What an operator's Retry on the queue dashboard does (`job.retry()` on a failed job): the step that failed
 * is performed again, against the provider or messaging driver that was down, and its effect is there
 * afterwards; a job with nothing left to do says why in its return value. Real BullMQ workers, a local
 * Moyasar and a local Twilio that can be made to fail.
 */
describe('operator retries from the dashboard', function () {
  this.timeout(40_000);
  const moyasar = new FakeMoyasar([SECRET_KEY]);
  let twilio: FakeTwilio;
  let deps: Deps;
  let server: TestServer;
  let pool: WorkerPool;
  let store: Store;
  let product: Product;

  before(async () => {
    await moyasar.start();
    twilio = await FakeTwilio.start();
    deps = await isolatedDeps({
      TRUST_PROXY: '1',
      // Failures spend attempts at once, so a job ends in the failed set for the operator to retry.
      TRANSIENT_DEFERRAL_LIMIT_MS: '0',
      PAYMENT_PROVIDER_TIMEOUT_MS: '400',
      MOYASAR_API_URL: moyasar.url,
      COINBASE_API_URL: 'http://127.0.0.1:9',
      MESSAGING_DRIVER: 'twilio',
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_SMS_FROM: '+15005550006',
      TWILIO_WHATSAPP_FROM: '+14155238886',
      TWILIO_API_BASE_URL: twilio.url,
    });
    server = await startServer(deps);
    pool = await WorkerPool.start(deps, {
      registry: processors,
      queues: ['otp', 'payments', 'messages', 'fulfilment', 'licenses', 'fivem'],
    });
    store = await createStore({ name: 'Retry Store' });
    await hostedMethod(deps, store, 'card', 'moyasar', { secret_key: SECRET_KEY, webhook_secret: 'whsec_r' });
    product = await createProduct(store, { name: 'Key', type: 'code', price_minor: 3_000 });
  });

  after(async () => {
    await pool?.close(1_000);
    await server?.close();
    await twilio?.close();
    await moyasar.close();
  });

  async function settled<N extends QueueName>(
    name: N,
    jobId: string,
    state: 'failed' | 'completed',
  ): Promise<Job> {
    return waitFor(
      `job ${jobId} to be ${state}`,
      async () => {
        // State first, then the job: read the other way round, the job may predate the change.
        return (await deps.queues[name].getJobState(jobId)) === state
          ? deps.queues[name].getJob(jobId)
          : undefined;
      },
      20_000,
    );
  }

  /** A job of our own with a single attempt, run to failure while its provider or driver is down. */
  async function failed<N extends QueueName>(name: N, data: JobPayloads[N], jobId: string): Promise<Job> {
    await enqueue(deps.queues, name, data, { jobId, attempts: 1 });
    return settled(name, jobId, 'failed');
  }

  /** The dashboard's Retry, then the job's return value once it completed. */
  async function retry<N extends QueueName>(name: N, job: Job): Promise<unknown> {
    await job.retry('failed');
    return (await settled(name, String(job.id), 'completed')).returnvalue;
  }

  async function paidOrder(phone: string): Promise<Order> {
    await deps.knex('product_codes').insert({ product_id: product.id, code: `KEY-${phone}` });
    const { checkout } = await insertCheckout(store, product, { quantity: 1, customer_phone: phone });
    const payment = await insertPaidPayment(checkout);
    const { order } = await deps.tx((uow) =>
      createOrderFromCheckout(uow, checkout.id, {
        status: ORDER_STATUS.IN_PROGRESS,
        paymentId: payment.id,
        paymentMethod: 'card',
      }),
    );
    return order;
  }

  it('payments initiate: the provider was down on every attempt; the retry opens the session after all', async () => {
    moyasar.failNext('5xx', 3);
    await deps.knex('product_codes').insert({ product_id: product.id, code: 'KEY-INITIATE' });
    const checkout = await guestCheckout(
      server,
      store,
      { product_id: product.id },
      { customer_phone: '500000401' },
    );
    const res = await guestInitiate(server, store, checkout.checkoutUrl, 'card');
    expect(res.status, res.text).to.equal(200);
    const paymentId = paymentIdOf((res.body.data as { redirect_url: string }).redirect_url);
    const job = await settled('payments', `payment-initiate-${paymentId}`, 'failed');
    expect(await Payment.query(deps.knex).findById(paymentId)).to.include({
      status: 'failed',
      error_message: PROVIDER_UNAVAILABLE_MESSAGE,
    });

    expect(await retry('payments', job)).to.equal('created');
    const payment = await Payment.query(deps.knex).findById(paymentId);
    expect(payment).to.include({ status: 'initiated', error_message: null });
    expect(moyasar.invoices.has(payment?.provider_payment_id ?? '')).to.equal(true);

    // Retried again (the dashboard retries completed jobs too), there is nothing left to do, and it says why.
    const done = await settled('payments', String(job.id), 'completed');
    await done.retry('completed');
    const again = await waitFor('the second run', async () => {
      const j = await deps.queues.payments.getJob(String(job.id));
      return j && (await j.getState()) === 'completed' && j.returnvalue !== 'created'
        ? j.returnvalue
        : undefined;
    });
    expect(again).to.match(/^nothing to do: the provider session is open \(moyasar /);
  });

  it('payments reconcile: the provider was down when asked; the retry finds the payment paid and creates the order', async () => {
    await deps.knex('product_codes').insert({ product_id: product.id, code: 'KEY-RECONCILE' });
    const checkout = await guestCheckout(
      server,
      store,
      { product_id: product.id },
      { customer_phone: '500000402' },
    );
    const res = await guestInitiate(server, store, checkout.checkoutUrl, 'card');
    const paymentId = paymentIdOf((res.body.data as { redirect_url: string }).redirect_url);
    const open = await waitFor('the session', async () => {
      const p = await Payment.query(deps.knex).findById(paymentId);
      return p?.status === 'initiated' ? p : undefined;
    });
    moyasar.pay(open.provider_payment_id ?? '');
    moyasar.failNext('5xx', 1);
    const job = await failed(
      'payments',
      { kind: 'reconcile', paymentId, reason: 'sweep' },
      `reconcile-${paymentId}`,
    );
    expect((await Payment.query(deps.knex).findById(paymentId))?.status).to.equal('initiated');
    expect(await Order.query(deps.knex).findOne({ checkout_id: checkout.checkoutId })).to.equal(undefined);

    await retry('payments', job);
    expect((await Payment.query(deps.knex).findById(paymentId))?.status).to.equal('paid');
    expect(await Order.query(deps.knex).where('checkout_id', checkout.checkoutId)).to.have.length(1);
  });

  it('otp: Twilio was down; the retry sends the code', async () => {
    const phone = '570000403';
    twilio.fail(`966${phone}`, { code: 20500 });
    const start = await embedClient(server, store.embed_key).post('/api/embed/auth/start', {
      product_id: product.id,
      country_code: '966',
      phone,
    });
    expect(start.status, start.text).to.equal(200);
    const token = (start.body.data as { session_token: string }).session_token;
    const session = await OtpSession.query(deps.knex).findOne({ token_hash: sha256(token) });
    // The API's own job retries with back-off; the operator's case is a job out of attempts, made here.
    const apiJob = await deps.queues.otp.getJob(`otp-${session!.id}-1`);
    await apiJob?.remove().catch(() => undefined);
    const job = await failed(
      'otp',
      { otpSessionId: session!.id, codeVersion: 1, route: 'whatsapp_first' },
      `otp-retry-${session!.id}`,
    );
    expect((await OtpSession.query(deps.knex).findById(session!.id))?.code_encrypted).to.not.equal(null);

    twilio.reset();
    expect(await retry('otp', job)).to.equal('sent');
    expect(twilio.requestsTo(`966${phone}`)).to.have.length(1);
    expect((await OtpSession.query(deps.knex).findById(session!.id))?.code_encrypted).to.equal(null);
  });

  it('messages: Twilio was down for the order delivery; the retry sends the key and marks the items', async () => {
    const order = await paidOrder('570000404');
    await deps
      .knex('product_codes')
      .where('code', 'KEY-570000404')
      .update({ order_item_id: (await deps.knex('order_items').where('order_id', order.id).first()).id });
    twilio.fail('966570000404', { code: 20500 });
    const job = await failed(
      'messages',
      { kind: 'order_delivery', orderId: order.id },
      `delivery-${order.id}`,
    );
    expect(
      await deps.knex('order_items').where('order_id', order.id).whereNull('delivered_at'),
    ).to.have.length(1);

    twilio.reset();
    expect(await retry('messages', job)).to.equal('sent');
    const sent = twilio.requestsTo('966570000404');
    expect(sent).to.have.length(1);
    expect(JSON.stringify(sent[0])).to.contain('KEY-570000404');
    expect(
      await deps.knex('order_items').where('order_id', order.id).whereNull('delivered_at'),
    ).to.have.length(0);
  });
});

/**
 * The queues whose only outside dependency is Postgres: their job fails while the worker cannot reach the
 * database (a worker whose DATABASE_URL points at a port where nothing listens), and the operator's retry,
 * picked up by a healthy worker, performs the whole step.
 */
describe('operator retries after the worker lost its database', function () {
  this.timeout(40_000);
  let deps: Deps;
  let down: Deps;
  let store: Store;

  // The failing worker reaches Postgres through this relay, which the test cuts: its connections drop and
  // new ones are closed at once, as when the database goes away under a running worker.
  let relay: net.Server;
  let cut = false;
  const relayed = new Set<net.Socket>();

  before(async () => {
    // A lost database would otherwise be waited out (docs/outages.md); here the job must fail first.
    deps = await isolatedDeps({ TRANSIENT_DEFERRAL_LIMIT_MS: '0' });
    const target = new URL(testDatabaseUrl);
    relay = net.createServer((client) => {
      if (cut) return client.destroy();
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        relayed.add(socket);
        socket.on('close', () => relayed.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const viaRelay = new URL(testDatabaseUrl);
    viaRelay.host = `127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
    down = await isolatedDeps({
      QUEUE_PREFIX: deps.config.queuePrefix,
      DATABASE_URL: viaRelay.toString(),
      TRANSIENT_DEFERRAL_LIMIT_MS: '0',
    });
    cut = true;
    for (const socket of relayed) socket.destroy();
    // isolatedDeps binds the test builders' models to the deps it made last: back to the healthy ones.
    Model.knex(deps.knex);
    store = await createStore({ name: 'Database Down Store' });
  });

  after(() => new Promise<void>((resolve) => relay.close(() => resolve())));

  /** Runs `data` on a worker without its database until it fails, then retries it on a healthy one. */
  async function failThenRetry<N extends QueueName>(
    name: N,
    data: JobPayloads[N],
    jobId: string,
  ): Promise<unknown> {
    const broken = await WorkerPool.start(down, { registry: processors, queues: [name] });
    let job: Job;
    try {
      await enqueue(deps.queues, name, data, { jobId, attempts: 1 });
      job = await waitFor(
        `job ${jobId} to fail`,
        async () => {
          // State first, then the job: read the other way round, it may predate the failure.
          return (await deps.queues[name].getJobState(jobId)) === 'failed'
            ? deps.queues[name].getJob(jobId)
            : undefined;
        },
        20_000,
      );
      expect(job.failedReason, JSON.stringify(job.toJSON())).to.match(/connect|terminated|closed/i);
    } finally {
      await broken.close(1_000);
    }
    const healthy = await WorkerPool.start(deps, { registry: processors, queues: [name] });
    try {
      await job.retry('failed');
      const done = await waitFor(
        `job ${jobId} to complete`,
        async () => {
          return (await deps.queues[name].getJobState(jobId)) === 'completed'
            ? deps.queues[name].getJob(jobId)
            : undefined;
        },
        20_000,
      );
      return done.returnvalue;
    } finally {
      await healthy.close(1_000);
    }
  }

  async function paidOrderOf(product: Product, fields: Record<string, unknown> = {}): Promise<Order> {
    const { checkout } = await insertCheckout(store, product, {
      quantity: 1,
      fields,
      customer_phone: '500000501',
    });
    const payment = await insertPaidPayment(checkout);
    const { order } = await deps.tx((uow) =>
      createOrderFromCheckout(uow, checkout.id, {
        status: ORDER_STATUS.IN_PROGRESS,
        paymentId: payment.id,
        paymentMethod: 'card',
      }),
    );
    return order;
  }

  it('fulfilment: the retry completes the order and queues the delivery', async () => {
    const product = await createProduct(store, { type: 'product', price_minor: 1_000 });
    const order = await paidOrderOf(product);
    const result = await failThenRetry(
      'fulfilment',
      { orderId: order.id, event: 'paid' },
      `fulfil-${order.id}`,
    );
    expect(result).to.include({ orderId: order.id, status: ORDER_STATUS.COMPLETED, delivery: true });
    expect((await Order.query(deps.knex).findById(order.id))?.status).to.equal(ORDER_STATUS.COMPLETED);
    expect(await deps.queues.messages.getJob(`order-delivery-${order.id}`)).to.not.equal(undefined);
  });

  it('licenses: the retry generates the missing key', async () => {
    const product = await createProduct(store, {
      type: 'product',
      price_minor: 1_000,
      license_enabled: true,
      license_prefix: 'RTRY',
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    const order = await paidOrderOf(product);
    const item = await deps.knex('order_items').where('order_id', order.id).first();
    const result = await failThenRetry(
      'licenses',
      { kind: 'generate', orderItemId: item.id },
      `license-${item.id}`,
    );
    expect(result).to.deep.equal({ generated: 1 });
    const keys = await deps.knex('licenses').where('order_item_id', item.id).pluck('key');
    expect(keys).to.have.length(1);
    expect(keys[0]).to.match(/^RTRY-/);
  });

  it('fivem: the retry puts the order’s commands on the store’s queue', async () => {
    const product = await createProduct(store, {
      type: 'product',
      price_minor: 1_000,
      fields: [{ type: 'text', label: 'Player ID', required: true }],
    });
    await deps.knex('product_fivem_commands').insert({
      product_id: product.id,
      command: 'give {player} vip',
      require_online: false,
      position: 0,
    });
    const order = await paidOrderOf(product, { '0': '12' });
    await failThenRetry('fivem', { orderId: order.id }, `fivem-${order.id}`);
    expect(await deps.knex('fivem_commands').where('order_id', order.id).pluck('command')).to.deep.equal([
      'give 12 vip',
    ]);
  });

  it('maintenance: the retry expires the checkouts that were due', async () => {
    const product = await createProduct(store, { type: 'product', price_minor: 1_000 });
    const { checkout } = await insertCheckout(store, product, {
      quantity: 1,
      expires_at: new Date(Date.now() - 60_000),
    });
    const result = await failThenRetry(
      'maintenance',
      { task: 'expire-checkouts', tick: new Date().toISOString() },
      `maintenance-retry-${checkout.id}`,
    );
    expect(result).to.be.an('object');
    expect((await deps.knex('checkouts').where('id', checkout.id).first()).status).to.equal('expired');
  });
});
