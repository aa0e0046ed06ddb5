import { expect } from 'chai';
import { ORDER_STATUS, OrderStatus, Product } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import type { SandboxProvider } from '../../../shared/providers/sandbox';
import { sweepPayments } from '../../../shared/services/payments';
import { sendRefundAndWithdraw } from '../../../shared/services/orders/refund';
import { refundJobId } from '../../../shared/services/refunds';
import { createProduct } from '../../helpers/builders';
import type { TestResponse } from '../../helpers/http';
import { FakeMoyasar } from '../../helpers/fake-moyasar';
import { dashboardLogin } from '../dashboard/support';
import { hostedMethod, paymentsSuite, PaymentsSuite, waitFor } from '../payments/support';
import { call, expectEnvelope, merchantStore, MerchantStore, seedOrder } from './support';

const SECRET_KEY = 'sk_test_refunds';

interface RefundBody {
  id: number;
  status: string;
  state: string;
  kind: string;
  amount: string;
  provider: string;
  note: string | null;
  withdraw_goods: boolean;
  provider_refund_id: string | null;
  provider_status: string | null;
  failure_reason: string | null;
  attempts: number;
}

interface Created {
  refund: RefundBody;
  order_status: number;
}
interface Listed {
  data: RefundBody[];
  summary: Record<string, string>;
}
const created = (res: TestResponse): Created => res.body.data as Created;
const listed = (res: TestResponse): Listed => res.body.data as Listed;
const fieldErrors = (res: TestResponse): Record<string, string[]> =>
  res.body.errors as Record<string, string[]>;
const changeOf = (res: TestResponse): Record<string, unknown> => res.body.data as Record<string, unknown>;

/**
 * POST/GET /shawarma/orders/{id}/refunds and the status change to Refunded, against a local Moyasar and
 * the sandbox provider, with the real payments worker sending each refund.
 */
describe('Merchant API: refunds', function () {
  this.timeout(60_000);
  const moyasar = new FakeMoyasar([SECRET_KEY]);
  let suite: PaymentsSuite;
  let m: MerchantStore;
  let product: Product;

  before(async () => {
    await moyasar.start();
    suite = await paymentsSuite({
      MOYASAR_API_URL: moyasar.url,
      RATE_LIMITS: 'off',
      // Back-off of 1 ms doubling: 12 attempts spend about 4 s, so a test can run them all out.
      REFUND_RETRY_DELAY_MS: '1',
    });
    m = await merchantStore();
    await hostedMethod(suite.deps, m.store, 'card', 'moyasar', { secret_key: SECRET_KEY });
    product = await createProduct(m.store, {
      price_minor: 10_000,
      license_enabled: true,
      license_prefix: 'RF',
    });
  });

  after(async () => {
    await suite?.close();
    await moyasar.close();
  });

  const post = (orderId: number, json: unknown, token = m.token, headers: Record<string, string> = {}) =>
    call(suite.server, token, 'POST', `/shawarma/orders/${orderId}/refunds`, json, headers);
  const list = (orderId: number, token = m.token) =>
    call(suite.server, token, 'GET', `/shawarma/orders/${orderId}/refunds`);

  async function paymentRow(
    method: string,
    provider: string,
    amountMinor: number,
    providerPaymentId: string | null,
  ): Promise<number> {
    const { knex } = suite.deps;
    const [checkout] = await knex('checkouts')
      .insert({
        store_id: m.store.id,
        token_hash: sha256(randomToken()),
        customer_first_name: 'S',
        customer_last_name: 'A',
        customer_email: 's@example.com',
        customer_country_code: '966',
        customer_phone: '500000001',
        product_id: product.id,
        quantity: 1,
        unit_price_minor: amountMinor,
        subtotal_minor: amountMinor,
        total_minor: amountMinor,
        currency: 'SAR',
        status: 'paid',
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .returning('id');
    const [row] = await knex('payments')
      .insert({
        checkout_id: (checkout as { id: number }).id,
        store_id: m.store.id,
        method,
        provider,
        status: 'paid',
        amount_minor: amountMinor,
        currency: 'SAR',
        provider_payment_id: providerPaymentId,
        paid_at: new Date(),
      })
      .returning('id');
    const paymentId = Number((row as { id: number }).id);
    await knex('payment_events').insert({
      payment_id: paymentId,
      from_status: 'initiated',
      to_status: 'paid',
      source: 'webhook',
      data: '{}',
    });
    return paymentId;
  }

  /** A completed order paid by card through Moyasar: an invoice at the stub, paid there. */
  async function moyasarOrder(amountMinor = 10_000, status: OrderStatus = ORDER_STATUS.COMPLETED) {
    const created = await fetch(`${moyasar.url}/v1/invoices`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ amount: amountMinor, currency: 'SAR', description: 'Order' }),
    });
    const invoice = (await created.json()) as { id: string };
    const charged = moyasar.pay(invoice.id);
    const paymentId = await paymentRow('card', 'moyasar', amountMinor, invoice.id);
    const order = await seedOrder(suite.deps.knex, m.store, product, {
      status,
      paymentId,
      paymentMethod: 'card',
      totalMinor: amountMinor,
    });
    await licenseFor(order);
    return { ...order, paymentId, moyasarPaymentId: charged.id };
  }

  async function licenseFor(order: { id: number; itemId: number }): Promise<void> {
    await suite.deps.knex('licenses').insert({
      store_id: m.store.id,
      product_id: product.id,
      order_id: order.id,
      order_item_id: order.itemId,
      unit: 1,
      key: `RF-${order.id}-${randomToken(4)}`,
      status: 'active',
    });
  }

  const refundsAtStub = (moyasarPaymentId: string) =>
    moyasar.refundCalls.filter((c) => c.paymentId === moyasarPaymentId);

  async function settled(refundId: number): Promise<RefundBody & { order_id: number }> {
    return waitFor(`refund ${refundId} to settle`, async () => {
      const row = await suite.deps.knex('refunds').where('id', refundId).first();
      return row && (row.status === 'succeeded' || row.status === 'failed') ? row : undefined;
    });
  }

  const licenseStatus = async (orderId: number): Promise<string> =>
    (await suite.deps.knex('licenses').where('order_id', orderId).first()).status;
  const orderStatus = async (orderId: number): Promise<number> =>
    (await suite.deps.knex('orders').where('id', orderId).first()).status;

  it('a partial refund of a Moyasar payment: pending at once, sent once in halalas, goods kept', async () => {
    const order = await moyasarOrder(10_000);
    const res = await post(order.id, { amount: '25.50', reason: 'Late delivery' });
    expectEnvelope(res, 201);
    const refund = created(res).refund;
    expect(refund).to.deep.include({
      status: 'pending',
      state: 'requested',
      kind: 'provider',
      provider: 'moyasar',
      amount: '25.50',
      withdraw_goods: false,
    });
    expect(created(res).order_status).to.equal(ORDER_STATUS.COMPLETED);

    const done = await settled(refund.id);
    expect(done).to.include({ status: 'succeeded', provider_refund_id: order.moyasarPaymentId });
    expect(done.provider_status).to.equal('refunded');
    expect(refundsAtStub(order.moyasarPaymentId)).to.deep.equal([
      { paymentId: order.moyasarPaymentId, amount: 2_550 },
    ]);
    // The goods stay: the order keeps its status, the license stays active, the payment stays paid.
    expect(await orderStatus(order.id)).to.equal(ORDER_STATUS.COMPLETED);
    expect(await licenseStatus(order.id)).to.equal('active');
    expect((await suite.deps.knex('payments').where('id', order.paymentId).first()).status).to.equal('paid');

    const page = await list(order.id);
    expectEnvelope(page, 200);
    expect(listed(page).summary).to.deep.equal({
      currency: 'SAR',
      paid: '100.00',
      refunded: '25.50',
      pending: '0.00',
      refundable: '74.50',
    });
    expect(listed(page).data.map((r) => [r.id, r.status])).to.deep.equal([[refund.id, 'succeeded']]);
    // The buyer is told, in English and Arabic, once.
    const messages = await waitFor('the buyer’s refund message', async () => {
      const rows = await suite.deps
        .knex('outbound_messages')
        .where({ purpose: 'refund', to: '966500000001' })
        .where('body', 'like', `%order #${order.number} %`);
      return rows.length > 0 ? (rows as { body: string }[]) : undefined;
    });
    expect(messages).to.have.length(1);
    expect(messages[0].body).to.contain('25.50 SAR').and.to.contain(`رقم ${order.number}`);
    const detail = await call(suite.server, m.token, 'GET', `/shawarma/orders/${order.id}`);
    expectEnvelope(detail, 200);
    expect((detail.body.data as { refunds: unknown }).refunds).to.deep.equal(listed(page).summary);
  });

  it('a full refund withdraws the goods once Moyasar has taken it: order Refunded, license revoked, payment refunded', async () => {
    const order = await moyasarOrder(8_000);
    const res = await post(order.id, {});
    expectEnvelope(res, 201);
    expect(created(res).refund).to.deep.include({
      amount: '80.00',
      withdraw_goods: true,
      status: 'pending',
    });
    // Nothing is taken back before the provider has said yes.
    expect(created(res).order_status).to.equal(ORDER_STATUS.COMPLETED);
    await settled(created(res).refund.id);
    expect(await orderStatus(order.id)).to.equal(ORDER_STATUS.REFUNDED);
    expect(await licenseStatus(order.id)).to.equal('revoked');
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([8_000]);
    expect((await suite.deps.knex('payments').where('id', order.paymentId).first()).status).to.equal(
      'refunded',
    );
    const history = await suite.deps.knex('order_status_events').where('order_id', order.id);
    expect(history.map((h) => [h.from_status, h.to_status, h.source, h.data.reason])).to.deep.equal([
      [4, 6, 'provider', 'refund_succeeded'],
    ]);
  });

  it('a partial refund takes the goods back when the merchant asks, once the provider took it', async () => {
    const order = await moyasarOrder(6_000);
    const res = await post(order.id, { amount: '10.00', withdraw_goods: true });
    expectEnvelope(res, 201);
    expect(created(res).order_status).to.equal(ORDER_STATUS.COMPLETED);
    await settled(created(res).refund.id);
    expect(await orderStatus(order.id)).to.equal(ORDER_STATUS.REFUNDED);
    expect(await licenseStatus(order.id)).to.equal('revoked');
    // Part of the money is still the merchant's: the payment stays paid, and the rest can be refunded later.
    expect((await suite.deps.knex('payments').where('id', order.paymentId).first()).status).to.equal('paid');
    expect(listed(await list(order.id)).summary.refundable).to.equal('50.00');
  });

  it('a refund Moyasar declines leaves the order, its license and its keys as they were, and tells the merchant', async () => {
    const { knex } = suite.deps;
    await knex('merchant_webhook_endpoints').insert({
      store_id: m.store.id,
      url: 'http://127.0.0.1:9/declined',
      events: ['refund.failed', 'order.status_changed'],
      secret_encrypted: suite.deps.cipher.encrypt('whsec_declined'),
    });
    const order = await moyasarOrder(7_000);
    const key = await knex('product_codes')
      .insert({
        product_id: product.id,
        code: `DECL-${order.id}`,
        status: 'sold',
        order_item_id: order.itemId,
      })
      .returning('id');
    moyasar.declineNextRefund.add(order.moyasarPaymentId);
    const res = await post(order.id, {});
    expectEnvelope(res, 201);
    const done = await settled(created(res).refund.id);
    expect(done.status).to.equal('failed');
    expect(done.failure_reason).to.contain('Payment cannot be refunded');
    expect(refundsAtStub(order.moyasarPaymentId)).to.have.length(0);

    expect(await orderStatus(order.id)).to.equal(ORDER_STATUS.COMPLETED);
    expect(await licenseStatus(order.id)).to.equal('active');
    const code = await knex('product_codes')
      .where('id', (key[0] as { id: number }).id)
      .first();
    expect([code.status, code.order_item_id]).to.deep.equal(['sold', order.itemId]);
    expect((await knex('payments').where('id', order.paymentId).first()).status).to.equal('paid');
    expect(await knex('order_status_events').where('order_id', order.id)).to.have.length(0);
    const afterDecline = listed(await list(order.id));
    expect(afterDecline.summary.refundable).to.equal('70.00');
    // The Merchant API tells the merchant: the refund's status and state are failed, with the reason.
    expect(afterDecline.data.map((r) => [r.status, r.state, r.failure_reason])).to.deep.equal([
      ['failed', 'failed', done.failure_reason],
    ]);
    const hooks = await knex('merchant_webhook_deliveries')
      .where({ store_id: m.store.id })
      .whereIn('event_type', ['refund.failed', 'order.status_changed']);
    expect(hooks.filter((h) => h.payload.data.order_id === order.id).map((h) => h.event_type)).to.deep.equal([
      'refund.failed',
    ]);
    await knex('merchant_webhook_endpoints').where('url', 'http://127.0.0.1:9/declined').del();
    // The dashboard's order page says so, in English and Arabic.
    const owner = await dashboardLogin(knex, suite.deps.appSecret, m.store.id, 'owner');
    const en = await suite.server.request(`/merchant/orders/${order.id}?lang=en`, {
      headers: { cookie: owner.cookie },
    });
    expect(en.status).to.equal(200);
    expect(en.text).to.contain(
      'The payment provider declined this refund: the order and its goods are as they were',
    );
    const ar = await suite.server.request(`/merchant/orders/${order.id}?lang=ar`, {
      headers: { cookie: owner.cookie },
    });
    expect(ar.text).to.contain('رفض مزوّد الدفع هذا الاسترجاع');
  });

  it('the refund job run many times at once refunds once and withdraws once', async () => {
    const { knex } = suite.deps;
    const order = await moyasarOrder(4_000);
    const res = await post(order.id, {});
    expectEnvelope(res, 201);
    const refundId = created(res).refund.id;
    // The worker's own job, and five more runs of it beside it (a redelivered job, a sweep).
    const runs = await Promise.allSettled(
      Array.from({ length: 5 }, () => sendRefundAndWithdraw({ ...suite.deps }, refundId)),
    );
    expect(runs.every((r) => r.status === 'fulfilled' || /waits for refund/.test(String(r.reason)))).to.equal(
      true,
    );
    await settled(refundId);
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([4_000]);
    expect(await orderStatus(order.id)).to.equal(ORDER_STATUS.REFUNDED);
    const history = await knex('order_status_events').where('order_id', order.id);
    expect(history.map((h) => [h.from_status, h.to_status])).to.deep.equal([[4, 6]]);
    expect(await knex('refunds').where('order_id', order.id)).to.have.length(1);
  });

  it('a refund request and a status change to Refunded at once: one refund, one withdrawal', async () => {
    const { knex } = suite.deps;
    for (let round = 0; round < 3; round += 1) {
      const order = await moyasarOrder(3_300);
      const [refund, change] = await Promise.all([
        post(order.id, {}),
        call(suite.server, m.token, 'PUT', `/shawarma/orders/${order.id}`, { status: ORDER_STATUS.REFUNDED }),
      ]);
      expectEnvelope(change, 200);
      expect([201, 422]).to.include(refund.status);
      const rows = await knex('refunds').where('order_id', order.id);
      expect(rows, 'one refund of the order').to.have.length(1);
      await settled(Number(rows[0].id));
      expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([3_300]);
      expect(await orderStatus(order.id)).to.equal(ORDER_STATUS.REFUNDED);
      const history = await knex('order_status_events').where('order_id', order.id);
      expect(history.map((h) => [h.from_status, h.to_status])).to.deep.equal([[4, 6]]);
      expect(await licenseStatus(order.id)).to.equal('revoked');
    }
  });

  it('over-refunds are a 422 naming amount; bad amounts too; nothing is sent', async () => {
    const order = await moyasarOrder(5_000);
    const first = await post(order.id, { amount: '30.00' });
    expectEnvelope(first, 201);
    const over = await post(order.id, { amount: '20.01' });
    expectEnvelope(over, 422);
    expect(Object.keys(fieldErrors(over))).to.deep.equal(['amount']);
    expect(fieldErrors(over).amount[0]).to.contain('At most 20.00 SAR');
    for (const amount of ['0', '0.00', '-5', '1.234', 'ten', 10]) {
      const bad = await post(order.id, { amount });
      expectEnvelope(bad, 422);
      expect(fieldErrors(bad), String(amount)).to.have.property('amount');
    }
    const unknown = await post(order.id, { amount: '1.00', restock: true });
    expectEnvelope(unknown, 422);
    expect(fieldErrors(unknown)).to.have.property('restock');
    await settled(created(first).refund.id);
    const rest = await post(order.id, { amount: '20.00' });
    expectEnvelope(rest, 201);
    await settled(created(rest).refund.id);
    const none = await post(order.id, {});
    expectEnvelope(none, 422);
    expect(fieldErrors(none).amount[0]).to.match(/refunded in full/);
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([3_000, 2_000]);
  });

  it('two simultaneous refunds of the whole amount: one wins, the other is a 422 naming amount', async () => {
    const order = await moyasarOrder(7_000);
    const answers = await Promise.all([
      post(order.id, { amount: '70.00' }),
      post(order.id, { amount: '70.00' }),
      post(order.id, {}),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([201, 422, 422]);
    for (const refused of answers.filter((a) => a.status === 422)) {
      expectEnvelope(refused, 422);
      expect(fieldErrors(refused)).to.have.property('amount');
    }
    const won = answers.find((a) => a.status === 201)!;
    await settled(created(won).refund.id);
    expect(
      await suite.deps.knex('refunds').where('order_id', order.id).count<{ n: number }[]>('* as n'),
    ).to.deep.equal([{ n: 1 }]);
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([7_000]);
  });

  it('Moyasar down, then back up: the refund stays pending, is retried, and reaches Moyasar exactly once', async () => {
    const order = await moyasarOrder(9_000);
    // Three attempts meet an outage: a 503, a hung request (the client times out), a 503.
    moyasar.failNext('5xx');
    moyasar.failNext('timeout');
    moyasar.failNext('5xx');
    const res = await post(order.id, { amount: '40.00' });
    expectEnvelope(res, 201);
    const refund = created(res).refund;
    expect(refund.status).to.equal('pending');
    const done = await settled(refund.id);
    expect(done.status).to.equal('succeeded');
    expect(done.attempts).to.equal(4);
    expect(refundsAtStub(order.moyasarPaymentId)).to.have.length(1);
  });

  it('an answer lost after Moyasar refunded: the retry finds the refund and sends nothing again', async () => {
    const order = await moyasarOrder(9_500);
    moyasar.failWhen('lost', (req) => req.method === 'POST' && req.path.endsWith('/refund'));
    const res = await post(order.id, { amount: '95.00', withdraw_goods: false });
    expectEnvelope(res, 201);
    const done = await settled(created(res).refund.id);
    expect(done).to.include({ status: 'succeeded', attempts: 2 });
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([9_500]);
    expect(await orderStatus(order.id), 'withdraw_goods false keeps the goods').to.equal(
      ORDER_STATUS.COMPLETED,
    );
  });

  it('attempts run out while Moyasar is down: still pending; a retry from the queue dashboard sends it once', async () => {
    const order = await moyasarOrder(4_000);
    moyasar.failNext('5xx', 12);
    const requestsBefore = moyasar.requests.length;
    const res = await post(order.id, { amount: '15.00' });
    const refundId = created(res).refund.id;
    const job = await waitFor('the refund job to fail for good', async () => {
      const found = await suite.deps.queues.payments.getJob(refundJobId(refundId));
      return found && (await found.isFailed()) ? found : undefined;
    });
    // Twelve attempts, or fewer when the machine is loaded enough for an attempt to stall past its lock
    // (BullMQ then fails the job without counting that attempt).
    expect(job.attemptsMade, job.failedReason).to.be.within(1, 12);
    const row = await suite.deps.knex('refunds').where('id', refundId).first();
    // No answer: `sent` in the refund's own states, `pending` in the API's status. Each attempt that asked
    // Moyasar counted itself first (on a loaded machine an attempt can fail before it asks, as any step of
    // a job can; it is still one of the job's twelve).
    const asked = moyasar.requests.length - requestsBefore;
    expect(row.status).to.equal('sent');
    expect(asked).to.be.within(1, 12);
    expect(row.attempts).to.be.within(asked, 12);
    const shown = listed(await list(order.id)).data.find((r) => r.id === refundId)!;
    expect([shown.status, shown.state]).to.deep.equal(['pending', 'sent']);
    expect(refundsAtStub(order.moyasarPaymentId)).to.have.length(0);

    // Moyasar is back; then what the dashboard's Retry does (bull-board calls job.retry on the failed job).
    moyasar.clearFaults();
    await job.retry('failed');
    expect((await settled(refundId)).status).to.equal('succeeded');
    // Retried again once it completed: the refund is settled, nothing more is sent.
    const completed = (await suite.deps.queues.payments.getJob(refundJobId(refundId)))!;
    await waitFor('the job to complete', async () => (await completed.isCompleted()) || undefined);
    await completed.retry('completed');
    await waitFor('the second retry to complete', async () => {
      const again = await suite.deps.queues.payments.getJob(refundJobId(refundId));
      const value = again && (await again.isCompleted()) ? (again.returnvalue as { outcome?: string }) : null;
      return value?.outcome === 'already-succeeded' ? value : undefined;
    });
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([1_500]);
  });

  it('a refund Moyasar refuses (a refund made in its dashboard meanwhile) fails with the reason; its amount is refundable again', async () => {
    const order = await moyasarOrder(3_000);
    // Someone refunded 10.00 in the Moyasar dashboard: our books no longer match Moyasar's.
    const charged = [...moyasar.invoices.values()]
      .flatMap((i) => i.payments)
      .find((p) => p.id === order.moyasarPaymentId)!;
    charged.refunded = 1_000;
    const res = await post(order.id, { amount: '30.00', withdraw_goods: false });
    const done = await settled(created(res).refund.id);
    expect(done.status).to.equal('failed');
    expect(done.failure_reason).to.contain('outside the platform');
    expect(refundsAtStub(order.moyasarPaymentId)).to.have.length(0);
    expect(listed(await list(order.id)).summary.refundable).to.equal('30.00');
  });

  it('the sandbox provider refunds through its own refund API (the demo store)', async () => {
    const { knex } = suite.deps;
    const sandboxId = `sbx_${randomToken(8)}`;
    await knex('sandbox_payments').insert({
      id: sandboxId,
      store_id: m.store.id,
      amount_minor: 5_000,
      currency: 'SAR',
      description: 'Order',
      return_url: 'http://127.0.0.1/return',
      status: 'paid',
    });
    const paymentId = await paymentRow('mada', 'sandbox', 5_000, sandboxId);
    const order = await seedOrder(knex, m.store, product, {
      status: ORDER_STATUS.COMPLETED,
      paymentId,
      paymentMethod: 'mada',
      totalMinor: 5_000,
    });
    const res = await post(order.id, { amount: '12.00' });
    expectEnvelope(res, 201);
    const done = await settled(created(res).refund.id);
    expect(done.status).to.equal('succeeded');
    const atSandbox = await knex('sandbox_refunds').where('payment_id', sandboxId);
    expect(atSandbox.map((r: { amount_minor: number; id: string }) => [r.id, r.amount_minor])).to.deep.equal([
      [done.provider_refund_id, 1_200],
    ]);
    // The sandbox's own API: the same idempotency key answers the first refund; more than is left is refused.
    const key = (await knex('refunds').where('id', done.id).first()).idempotency_key as string;
    const sandbox = suite.deps.providers.sandbox as SandboxProvider;
    const request = {
      providerPaymentId: sandboxId,
      amountMinor: 1_200,
      currency: 'SAR',
      idempotencyKey: key,
      refundedBeforeMinor: 0,
      reason: null,
    };
    expect(await sandbox.refundPayment(request)).to.deep.include({
      providerRefundId: done.provider_refund_id,
      replayed: true,
    });
    const refusal = await sandbox
      .refundPayment({ ...request, idempotencyKey: `other-${randomToken(4)}`, amountMinor: 3_801 })
      .catch((err: Error) => err);
    expect(refusal).to.have.property('name', 'ProviderRejectedError');
    expect(await knex('sandbox_refunds').where('payment_id', sandboxId)).to.have.length(1);
  });

  it('bank transfer, PayPal and crypto record a manual refund with a note, succeeded at once', async () => {
    for (const [method, provider, words] of [
      ['bank', 'bank', 'bank transfer'],
      ['paypal', 'paypal', 'PayPal'],
      ['coinbase', 'coinbase', 'cryptocurrency'],
    ] as const) {
      const paymentId = await paymentRow(
        method,
        provider,
        2_000,
        provider === 'coinbase' ? `cb_${randomToken(6)}` : null,
      );
      const order = await seedOrder(suite.deps.knex, m.store, product, {
        status: ORDER_STATUS.IN_PROGRESS,
        paymentId,
        paymentMethod: method,
        totalMinor: 2_000,
      });
      const res = await post(order.id, { amount: '5.00', reason: 'Goodwill' });
      expectEnvelope(res, 201);
      const refund = created(res).refund;
      expect(refund, method).to.deep.include({
        kind: 'manual',
        status: 'succeeded',
        provider,
        amount: '5.00',
      });
      expect(refund.note, method).to.contain(words).and.to.contain('5.00 SAR').and.to.contain('استرداد يدوي');
      const own = await post(order.id, { note: 'Sent back by transfer #42' });
      expectEnvelope(own, 201);
      expect(created(own).refund).to.deep.include({ note: 'Sent back by transfer #42', amount: '15.00' });
      expect((await suite.deps.knex('payments').where('id', paymentId).first()).status).to.equal('refunded');
    }
  });

  it('PUT status 6 refunds what is left in full through the same path, and still answers as before', async () => {
    const order = await moyasarOrder(6_500);
    const partial = await post(order.id, { amount: '15.00' });
    await settled(created(partial).refund.id);
    const res = await call(suite.server, m.token, 'PUT', `/shawarma/orders/${order.id}`, { status: 6 });
    expectEnvelope(res, 200);
    expect(changeOf(res)).to.deep.include({
      status: 6,
      previous_status: 4,
      changed: true,
      licenses_revoked: 1,
    });
    const refundId = changeOf(res).refund_id as number;
    expect((await settled(refundId)).status).to.equal('succeeded');
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([1_500, 5_000]);
    const again = await call(suite.server, m.token, 'PUT', `/shawarma/orders/${order.id}`, { status: 6 });
    expect(changeOf(again)).to.deep.include({ changed: false });
    expect(changeOf(again)).to.not.have.property('refund_id');
  });

  it('the same Idempotency-Key answers the refund it made; another store’s order is a 404', async () => {
    const order = await moyasarOrder(3_300);
    const key = `refund-${randomToken(6)}`;
    const [a, b] = await Promise.all([
      post(order.id, { amount: '3.00' }, m.token, { 'Idempotency-Key': key }),
      post(order.id, { amount: '3.00' }, m.token, { 'Idempotency-Key': key }),
    ]);
    expect([a.status, b.status].sort()).to.deep.equal([200, 201]);
    expect(created(a).refund.id).to.equal(created(b).refund.id);
    const other = await post(order.id, { amount: '4.00' }, m.token, { 'Idempotency-Key': key });
    expectEnvelope(other, 409);

    const stranger = await merchantStore();
    const theirs = await post(order.id, { amount: '1.00' }, stranger.token);
    expectEnvelope(theirs, 404);
    expectEnvelope(await list(order.id, stranger.token), 404);
    await settled(created(a).refund.id as number);
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([300]);
    expect(
      await suite.deps.knex('refunds').where('order_id', order.id).count<{ n: number }[]>('* as n'),
    ).to.deep.equal([{ n: 1 }]);
  });

  it('merchant webhook events: refund.created then refund.succeeded, or refund.failed, each once', async () => {
    const hook = await call(suite.server, m.token, 'POST', '/shawarma/webhooks', {
      url: 'http://127.0.0.1:9/refund-events',
      events: ['refund.created', 'refund.succeeded', 'refund.failed'],
    });
    expectEnvelope(hook, 201);
    const endpointId = (hook.body.data as { id: number }).id;
    const order = await moyasarOrder(2_200);
    const ok = created(await post(order.id, { amount: '2.00' })).refund;
    await settled(ok.id);
    const charged = [...moyasar.invoices.values()]
      .flatMap((i) => i.payments)
      .find((p) => p.id === order.moyasarPaymentId)!;
    charged.refunded += 50; // a refund made in the Moyasar dashboard: the next one is refused
    const refused = created(await post(order.id, { amount: '1.00' })).refund;
    await settled(refused.id);
    const deliveries = await suite.deps
      .knex('merchant_webhook_deliveries')
      .where('endpoint_id', endpointId)
      .orderBy('id');
    expect(deliveries.map((d: { event_id: string }) => d.event_id)).to.deep.equal([
      `refund.created:${ok.id}`,
      `refund.succeeded:${ok.id}`,
      `refund.created:${refused.id}`,
      `refund.failed:${refused.id}`,
    ]);
    const succeeded = deliveries[1].payload as { type: string; data: RefundBody & { order_id: number } };
    expect(succeeded.type).to.equal('refund.succeeded');
    expect(succeeded.data).to.deep.include({ order_id: order.id, amount: '2.00', status: 'succeeded' });
    await call(suite.server, m.token, 'DELETE', `/shawarma/webhooks/${endpointId}`);
  });

  it('a pending refund whose job was lost (Redis down at the commit) is sent by the payments sweep', async () => {
    const { knex, queues } = suite.deps;
    const order = await moyasarOrder(1_800);
    const asked = new Date(Date.now() - 5 * 60_000);
    // The row as the API commits it; its job never reached Redis.
    const [row] = await knex('refunds')
      .insert({
        store_id: m.store.id,
        order_id: order.id,
        payment_id: order.paymentId,
        amount_minor: 800,
        currency: 'SAR',
        kind: 'provider',
        provider: 'moyasar',
        status: 'requested',
        idempotency_key: `rfd_${randomToken(12)}`,
        created_at: asked,
        updated_at: asked,
      })
      .returning('id');
    const refundId = Number((row as { id: number }).id);
    expect(await queues.payments.getJob(refundJobId(refundId))).to.equal(undefined);
    const swept = await sweepPayments(knex, new Date(), { queues });
    expect(swept.refunds).to.be.at.least(1);
    expect((await settled(refundId)).status).to.equal('succeeded');
    // The sweep again: the job exists (completed), so nothing is added or sent.
    await sweepPayments(knex, new Date(), { queues });
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([800]);
  });

  it('a Moyasar charge recorded by its payment id (no invoice) is refunded on that payment', async () => {
    const order = await moyasarOrder(2_500);
    await suite.deps
      .knex('payments')
      .where('id', order.paymentId)
      .update({ provider_payment_id: order.moyasarPaymentId });
    const res = await post(order.id, { amount: '5.00' });
    expect((await settled(created(res).refund.id)).status).to.equal('succeeded');
    expect(refundsAtStub(order.moyasarPaymentId).map((c) => c.amount)).to.deep.equal([500]);
  });

  it('an order with nothing paid has nothing to refund (422 naming amount)', async () => {
    const order = await seedOrder(suite.deps.knex, m.store, product, { status: ORDER_STATUS.IN_PROGRESS });
    const res = await post(order.id, {});
    expectEnvelope(res, 422);
    expect(fieldErrors(res).amount[0]).to.contain('Nothing was paid');
  });
});
