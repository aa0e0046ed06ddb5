import { expect } from 'chai';
import { Order, ORDER_STATUS, Payment, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createDeps } from '../../../shared/deps';
import { relayOutbox } from '../../../shared/queues/outbox';
import { updateOrderStatus } from '../../../shared/services/orders/transitions';
import { CollectedEvent, collectEvents } from '../../../shared/services/analytics';
import { createOrderFromCheckout } from '../../../shared/services/orders';
import { otpGuardsOf } from '../../../shared/services/otp/factory';
import { OtpService } from '../../../shared/services/otp';
import { initiatePayment } from '../../../shared/services/payments/initiate';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { sharedDeps, testConfig } from '../../helpers/deps';
import { FakeMoyasar } from '../../helpers/fake-moyasar';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { PrivateRedis } from '../../helpers/private-services';
import { guestInitiate, hostedMethod } from '../payments/support';
import { sleep, waitFor } from '../queues/support';

const SECRET_KEY = 'sk_test_refused';

/**
 * A refused request starts no work, and an accepted one starts its work exactly once, across a frozen
 * Redis: requests are sent while this suite's own redis-server is stopped with SIGSTOP, which keeps
 * every command written to its socket and runs them all once it resumes (the case where a request's
 * enqueue timed out for us but reached Redis later). Provider sessions are counted at the Moyasar stub,
 * messages in the outbox driver's table, jobs in their queues.
 */
describe('outages: a refused request starts no work', function () {
  this.timeout(120_000);
  const moyasar = new FakeMoyasar([SECRET_KEY]);
  let redis: PrivateRedis;
  let web: Deps;
  let server: TestServer;
  let pool: WorkerPool | null = null;
  let store: Store;
  let product: Product;

  before(async () => {
    await sharedDeps(); // binds the data builders to the run's database
    await moyasar.start();
    redis = await PrivateRedis.start({ fsync: 'everysec' });
    const env = {
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'refused',
      TRUST_PROXY: '1',
      DEPENDENCY_TIMEOUT_MS: '1000',
      DEPENDENCY_BREAKER_OPEN_MS: '300',
      TRANSIENT_RETRY_MAX_DELAY_MS: '500',
      MOYASAR_API_URL: moyasar.url,
    };
    web = await createDeps(testConfig(env), { role: 'web', pool: { min: 0, max: 6 } });
    server = await startServer(web);
    store = await createStore({ name: 'Refused Store', domains: ['refused-shop.example.test'] });
    await hostedMethod(web, store, 'card', 'moyasar', { secret_key: SECRET_KEY, webhook_secret: 'whsec_f' });
    product = await createProduct(store, { name: 'Game key', type: 'code', price_minor: 5_000 });
    await web
      .knex('product_codes')
      .insert(Array.from({ length: 20 }, (_, i) => ({ product_id: product.id, code: `KEY-REFUSED-${i}` })));
  });

  after(async () => {
    redis?.thaw();
    await pool?.close(500);
    await server?.close();
    await web?.close().catch(() => undefined);
    await redis?.destroy();
    await moyasar.close();
  });

  async function startWorkers(): Promise<void> {
    pool ??= await WorkerPool.start(web, {
      registry: processors,
      queues: ['payments', 'otp', 'fulfilment', 'messages', 'merchant-webhooks', 'analytics'],
    });
  }

  // The merchant's change (source merchant): fulfilment may complete the order after it (source system).
  const lastAudit = async (orderId: number): Promise<{ id: number }> =>
    web
      .knex('order_status_events')
      .where({ order_id: orderId, source: 'merchant' })
      .orderBy('id', 'desc')
      .first('id');

  const outboxSize = async (): Promise<number> =>
    Number((await web.knex('job_outbox').count({ n: '*' }).first())?.n);

  /** What the relay would do a minute later, once Redis answers. */
  const relay = (): Promise<{ relayed: number }> =>
    relayOutbox(web.knex, new Date(Date.now() + 60_000), { queues: web.queues });

  it('payment/initiate: refused requests open no provider session; accepted ones open one each', async () => {
    const checkouts = [];
    for (let i = 0; i < 6; i += 1) {
      checkouts.push(
        await guestCheckout(server, store, { product_id: product.id }, { customer_phone: `50000050${i}` }),
      );
    }
    redis.freeze();
    const answers: { checkoutId: number; res: TestResponse }[] = [];
    try {
      // Through the Embed API: each answer is a refusal (503) or an acceptance, within the bound.
      for (const c of checkouts.slice(0, 3)) {
        answers.push({
          checkoutId: c.checkoutId,
          res: await guestInitiate(server, store, c.checkoutUrl, 'card'),
        });
      }
      // The service itself, as the route calls it once its own Redis steps are past: the payment commits
      // and its job cannot reach Redis. The payment is accepted; its job waits in the outbox.
      for (const c of checkouts.slice(3)) {
        await sleep(350); // past the breaker's window: this call's enqueue meets the frozen socket
        const initiation = await initiatePayment(web, { checkoutId: c.checkoutId }, 'card');
        expect(initiation.kind).to.equal('redirect');
      }
    } finally {
      redis.thaw();
    }
    for (const { res } of answers) {
      expect(res.status, res.text).to.be.oneOf([200, 503]);
      if (res.status === 503) expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    }
    const refused = answers.filter((a) => a.res.status === 503).map((a) => a.checkoutId);
    const accepted = checkouts.map((c) => c.checkoutId).filter((id) => !refused.includes(id));
    // Redis runs whatever reached its socket while frozen; the relay enqueues what never did; both under
    // the payment's job id.
    await startWorkers();
    await sleep(500);
    expect((await relay()).relayed).to.be.at.least(0);
    await waitFor(
      'a provider session for every accepted payment',
      async () => {
        const opened = await Payment.query(web.knex)
          .whereIn('checkout_id', accepted)
          .whereNotNull('provider_payment_id');
        return opened.length === accepted.length;
      },
      20_000,
      100,
    );
    await sleep(1_000); // room for a second (wrong) session to be opened
    expect(moyasar.invoices.size, 'sessions opened at the provider').to.equal(accepted.length);
    const forRefused = await Payment.query(web.knex).whereIn('checkout_id', refused);
    expect(forRefused.filter((p) => p.provider_payment_id !== null)).to.have.length(0);
    expect(await outboxSize()).to.equal(0);
    expect(refused.length + accepted.length).to.equal(6);
  });

  it('auth/start: a refused request sends no code; an accepted one sends exactly one', async () => {
    const phones = ['500000601', '500000602', '500000603'];
    redis.freeze();
    const answers: TestResponse[] = [];
    try {
      for (const phone of phones) {
        await sleep(350);
        answers.push(
          await server.request('/api/embed/auth/start', {
            method: 'POST',
            json: { product_id: product.id, country_code: '+966', phone },
            headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
          }),
        );
      }
    } finally {
      redis.thaw();
    }
    await startWorkers();
    await sleep(3_000);
    for (const [i, res] of answers.entries()) {
      expect(res.status, res.text).to.be.oneOf([200, 503]);
      const sent = await web.knex('outbound_messages').where({ to: `966${phones[i]}`, purpose: 'otp' });
      expect(sent, `${phones[i]} answered ${res.status}`).to.have.length(res.status === 200 ? 1 : 0);
    }
  });

  const results: string[] = [];

  it('OTP start and resend past their Redis steps: accepted, and each code is sent exactly once', async () => {
    // The service with its rate limits passed (they are the route's Redis steps before this point).
    // Its failure cap and message budget (Redis steps before the commit) counted on the suite's own Redis,
    // which stays up: what is tested is what happens after them.
    const otp = new OtpService({
      ...web,
      logger: web.logger,
      consumeLimit: async () => undefined,
      guards: otpGuardsOf({ ...web, redis: (await sharedDeps()).redis }),
    });
    const phone = '500000611';
    // A session to resend, with its cooldown passed.
    const first = await otp.start(
      store,
      'embed',
      { country_code: '+966', phone, product_id: product.id },
      randomIp(),
    );
    await startWorkers();
    await waitFor(
      'the first code sent',
      async () =>
        (await web.knex('outbound_messages').where({ to: `966${phone}`, purpose: 'otp' })).length === 1,
      15_000,
      100,
    );
    await web
      .knex('otp_sessions')
      .where({ phone })
      .update({ last_sent_at: new Date(Date.now() - 3_600_000) });
    redis.freeze();
    try {
      // Each call after the breaker's window: the send job's enqueue meets the frozen socket.
      await sleep(350);
      const resent = await otp.resend(store, 'embed', first.session_token, randomIp()).then(
        () => 'accepted',
        (err: Error) => `refused: ${err.message}`,
      );
      await sleep(350);
      const started = await otp
        .start(
          store,
          'embed',
          { country_code: '+966', phone: '500000612', product_id: product.id },
          randomIp(),
        )
        .then(
          () => 'accepted',
          (err: Error) => `refused: ${err.message}`,
        );
      results.push(resent, started);
    } finally {
      redis.thaw();
    }
    await startWorkers();
    await sleep(500);
    await relay();
    expect(await outboxSize()).to.equal(0);
    await sleep(2_000);
    const sent = async (p: string): Promise<number> =>
      (await web.knex('outbound_messages').where({ to: `966${p}`, purpose: 'otp' })).length;
    // Both committed with their job, so both were accepted; each code went out once (the late write from
    // the frozen socket and the relay added one job).
    expect(results).to.deep.equal(['accepted', 'accepted']);
    // The first code before the freeze, the resent one once after it.
    const [session] = await web.knex('otp_sessions').where({ phone }).select('id', 'code_version');
    expect(session.code_version).to.equal(2);
    const keys = await web.knex('message_sends').where('key', 'like', `otp:${session.id}:v%`).pluck('key');
    expect(keys.sort()).to.deep.equal([`otp:${session.id}:v1`, `otp:${session.id}:v2`]);
    expect(await sent(phone)).to.equal(2);
    expect(await sent('500000612')).to.equal(1);
  });

  it('a merchant status change: its fulfilment and webhook jobs are written with it, enqueued once', async () => {
    // An order under review (bank transfer) that the merchant confirms while Redis is frozen.
    await web.knex('merchant_webhook_endpoints').insert({
      store_id: store.id,
      url: 'http://127.0.0.1:9/hook',
      events: ['order.paid', 'order.status_changed'],
      secret_encrypted: web.cipher.encrypt('whsec_endpoint_secret_0001'),
    });
    const checkout = await guestCheckout(
      server,
      store,
      { product_id: product.id },
      { customer_phone: '500000701' },
    );
    const { order } = await web.tx((uow) =>
      createOrderFromCheckout(uow, checkout.checkoutId, {
        status: ORDER_STATUS.UNDER_REVIEW,
        paymentId: null,
        paymentMethod: 'bank',
      }),
    );
    redis.freeze();
    try {
      await sleep(350);
      const result = await updateOrderStatus(web, store.id, order.id, ORDER_STATUS.IN_PROGRESS, {
        merchantTokenId: null,
      });
      expect(result.changed).to.equal(true);
    } finally {
      redis.thaw();
    }
    // The change committed with its jobs in the outbox: none reached Redis in time.
    expect(await outboxSize()).to.be.at.least(2);
    await sleep(500);
    await relay();
    expect(await outboxSize()).to.equal(0);
    // Each job once, although both the late write from the frozen socket and the relay may have added it.
    const fulfilment = (
      await web.queues.fulfilment.getJobs(['waiting', 'active', 'completed', 'delayed', 'failed'])
    ).filter((j) => j.data.orderId === order.id);
    // One fulfilment job, staged by the order lifecycle with the change (named after its status event).
    expect(fulfilment.map((j) => String(j.id).replace(/^[^.]*\./, ''))).to.deep.equal([
      `order-merchant-${(await lastAudit(order.id)).id}`,
    ]);
    const deliveries = await web.knex('merchant_webhook_deliveries').where({ store_id: store.id });
    expect(deliveries.length).to.be.at.least(2); // order.paid and order.status_changed
    const jobs = await web.queues['merchant-webhooks'].getJobs([
      'waiting',
      'active',
      'completed',
      'delayed',
      'failed',
    ]);
    for (const d of deliveries) {
      expect(
        jobs.filter((j) => j.data.deliveryId === Number(d.id)),
        `delivery ${d.id}`,
      ).to.have.length(1);
    }
    await waitFor(
      'the order fulfilled',
      async () => (await Order.query(web.knex).findById(order.id))?.status === ORDER_STATUS.COMPLETED,
      20_000,
      100,
    );
  });

  it('analytics collect: events of a refused request are not recorded; accepted ones once', async () => {
    const collect = (path: string): Promise<TestResponse> =>
      server.request('/api/storefront/analytics/collect', {
        method: 'POST',
        json: { type: 'pageview', path },
        headers: {
          Host: 'refused-shop.example.test:8443',
          'X-Forwarded-For': randomIp(),
          'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36',
        },
      });
    // Warm: the day's salt is read from Redis once, then kept in memory.
    expect((await collect('/warm')).status).to.equal(202);
    redis.freeze();
    const answers: { path: string; res: TestResponse }[] = [];
    const abandonedPaths: string[] = [];
    try {
      for (const path of ['/frozen-1', '/frozen-2']) {
        await sleep(350);
        answers.push({ path, res: await collect(path) });
      }
      // The service as the route calls it once the route's own Redis steps are past: its enqueue meets
      // the frozen socket (after the breaker's window), times out, and the request is refused.
      for (const path of ['/frozen-3', '/frozen-4']) {
        await sleep(350);
        const events = [{ type: 'pageview', path } as CollectedEvent];
        const failed = await collectEvents(
          {
            queues: web.queues,
            knex: web.knex,
            logger: web.logger,
            salt: web.services.analyticsSalt,
            batcher: web.services.analyticsBatcher,
          },
          store,
          events,
          { ip: randomIp(), userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36' },
        ).then(
          () => false,
          () => true,
        );
        expect(failed, `${path}: the enqueue failed`).to.equal(true);
        abandonedPaths.push(path);
      }
    } finally {
      redis.thaw();
    }
    await startWorkers();
    await waitFor(
      'the warm-up event recorded',
      async () =>
        (await web.knex('analytics_events').where({ store_id: store.id, path: '/warm' })).length === 1,
      20_000,
      100,
    );
    await sleep(2_500); // the late jobs from the frozen socket run meanwhile
    for (const path of abandonedPaths) {
      expect(await web.knex('analytics_events').where({ store_id: store.id, path }), path).to.have.length(0);
    }
    // Their jobs did reach Redis once it resumed, and ran: they wrote nothing.
    const ran = await web.queues.analytics.getJobs(['completed']);
    expect(ran.length).to.be.at.least(1 + abandonedPaths.length);
    for (const { path, res } of answers) {
      expect(res.status, res.text).to.be.oneOf([202, 503]);
      const stored = await web.knex('analytics_events').where({ store_id: store.id, path });
      expect(stored, `${path} answered ${res.status}`).to.have.length(res.status === 202 ? 1 : 0);
    }
    expect(await web.knex('abandoned_jobs').where({ queue: 'analytics' })).to.have.length(2);
  });
});
