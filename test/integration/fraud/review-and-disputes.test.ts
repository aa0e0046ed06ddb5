import { expect } from 'chai';
import { ORDER_STATUS, Order, Product, Store } from '../../../db/models';
import { signSandboxWebhook, sandboxWebhookKey } from '../../../shared/providers/sandbox';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import {
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  statusOf,
  usePaymentsSuite,
  waitFor,
} from '../payments/support';
import { buyer, chooseInSandbox, expectBlocked, setFraudSettings } from './support';

/**
 * Through the sandbox provider, as outside tooling drives it (docs/operations.md): paid orders count
 * against `max_orders_per_buyer_per_day`; `review_above` holds a first purchase in Under review with
 * nothing delivered until PUT /shawarma/orders/{id} to 4; and `outcome=disputed` after paid is a signed
 * dispute webhook that marks the order, revokes its licenses, withholds what was not delivered, blocks the
 * buyer and sends `order.disputed`, once, under duplicate and simultaneous webhooks.
 */
describe('fraud controls: paid orders, the review queue and disputes (sandbox)', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let token: string;
  let keys: Product;
  let licensed: Product;

  beforeEach(async () => {
    store = await createStore();
    token = await merchantToken(store);
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    keys = await createProduct(store, { type: 'code', price_minor: 30_000 });
    await suite.deps
      .knex('product_codes')
      .insert(
        ['K-1', 'K-2', 'K-3', 'K-4'].map((code) => ({ product_id: keys.id, code, status: 'available' })),
      );
    licensed = await createProduct(store, {
      price_minor: 2_000,
      license_enabled: true,
      license_prefix: 'I43',
    });
  });

  const merchant = (method: string, path: string, json?: unknown) =>
    suite.server.request(path, { method, json, headers: { Authorization: `Bearer ${token}` } });

  /** The contract's redirect_url, sent to this test's server. */
  const onServer = (url: string) => `${suite.server.url}${new URL(url).pathname}`;
  const choose = (redirectUrl: string, outcome: string) =>
    chooseInSandbox(suite.server, redirectUrl, outcome);

  /** A guest checkout of `product` paid through the sandbox; answers the order and the payment page. */
  async function buy(
    product: Product,
    who: Record<string, string>,
  ): Promise<{ order: Order; redirectUrl: string; checkoutUrl: string }> {
    const checkout = await guestCheckout(suite.server, store, { product_id: product.id }, who);
    const init = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(init.status, init.text).to.equal(200);
    const redirectUrl = (init.body.data as { redirect_url: string }).redirect_url;
    const paid = await choose(redirectUrl, 'paid');
    expect(paid.status, paid.text).to.equal(200);
    const order = await orderOf(checkout.checkoutId);
    return { order, redirectUrl, checkoutUrl: checkout.checkoutUrl };
  }

  const settled = (orderId: number, statuses: number[]) =>
    waitFor(`order ${orderId} to settle`, async () => {
      const o = await Order.query().findById(orderId);
      return o && statuses.includes(o.status) ? o : undefined;
    });

  it('paid orders count against max_orders_per_buyer_per_day: the third checkout of the day is refused', async () => {
    await setFraudSettings(suite.server, store, { max_orders_per_buyer_per_day: 2 });
    const who = buyer();
    for (let i = 0; i < 2; i += 1) {
      const { order } = await buy(licensed, who);
      await completionOf(order.id);
    }
    const third = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: { product_id: licensed.id, quantity: 1, ...who },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expectBlocked(third);
  });

  it('review_above: a first purchase above it waits Under review with nothing delivered; PUT 4 delivers', async () => {
    await setFraudSettings(suite.server, store, { review_above: '250.00' });
    const who = buyer();
    const { order, checkoutUrl } = await buy(keys, who);
    const held = await settled(order.id, [
      ORDER_STATUS.UNDER_REVIEW,
      ORDER_STATUS.IN_PROGRESS,
      ORDER_STATUS.COMPLETED,
    ]);
    expect(held.status).to.equal(ORDER_STATUS.UNDER_REVIEW);
    // Paid, but nothing delivered: no key went out, no delivery message.
    expect((await statusOf(suite.server, checkoutUrl)).body.data).to.deep.include({ is_paid: true });
    const delivered = await suite.deps
      .knex('order_items')
      .where('order_id', order.id)
      .whereNotNull('delivered_at')
      .count<{ n: string }[]>('* as n');
    expect(Number(delivered[0]!.n)).to.equal(0);
    const detail = await merchant('GET', `/shawarma/orders/${order.id}`);
    expect(detail.status, detail.text).to.equal(200);
    const risk = (detail.body.data as { risk: { score: number; held: boolean; reasons: { code: string }[] } })
      .risk;
    expect(risk.held).to.equal(true);
    expect(risk.reasons.map((r) => r.code)).to.deep.equal(['first_purchase', 'review_above']);
    expect(risk.score).to.equal(70);

    const approved = await merchant('PUT', `/shawarma/orders/${order.id}`, { status: 4 });
    expect(approved.status, approved.text).to.equal(200);
    await waitFor('the key to be delivered', async () => {
      const rows = await suite.deps
        .knex('order_items')
        .where('order_id', order.id)
        .whereNotNull('delivered_at');
      return rows.length > 0 ? rows : undefined;
    });

    // The same buyer's next order is not a first purchase: not held, whatever its amount.
    const next = await buy(keys, who);
    const done = await completionOf(next.order.id);
    expect(done.status).to.equal(ORDER_STATUS.COMPLETED);
    // Below the amount, a first purchase goes through.
    const small = await buy(licensed, buyer());
    expect((await completionOf(small.order.id)).status).to.equal(ORDER_STATUS.COMPLETED);
  });

  it('many buyers on one IP in an hour: the order that reaches the count waits for review', async () => {
    await setFraudSettings(suite.server, store, { review_buyers_per_ip_per_hour: 3 });
    const ip = randomIp();
    const open = (who: Record<string, string>) =>
      suite.server.request('/api/embed/guest/checkout', {
        method: 'POST',
        json: { product_id: licensed.id, quantity: 1, ...who },
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': ip },
      });
    const opened: { checkout_url: string; checkout_id: number }[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await open(buyer());
      expect(res.status, res.text).to.equal(200);
      opened.push(res.body.data as { checkout_url: string; checkout_id: number });
    }
    const last = opened[2]!;
    const init = await guestInitiate(suite.server, store, last.checkout_url, 'card');
    const paid = await choose((init.body.data as { redirect_url: string }).redirect_url, 'paid');
    expect(paid.status).to.equal(200);
    const order = await orderOf(last.checkout_id);
    const held = await settled(order.id, [
      ORDER_STATUS.UNDER_REVIEW,
      ORDER_STATUS.IN_PROGRESS,
      ORDER_STATUS.COMPLETED,
    ]);
    expect(held.status).to.equal(ORDER_STATUS.UNDER_REVIEW);
    const risk = await suite.deps.knex('order_risk').where('order_id', order.id).first();
    expect(risk.reasons.map((r: { code: string }) => r.code)).to.include('buyers_per_ip');
  });

  it('a dispute through the sandbox, with duplicate and simultaneous webhooks, takes everything back once', async () => {
    const [endpoint] = await suite.deps
      .knex('merchant_webhook_endpoints')
      .insert({
        store_id: store.id,
        url: 'http://127.0.0.1:9/hook',
        events: ['order.disputed', 'license.revoked'],
        secret_encrypted: suite.deps.cipher.encrypt('whsec_i43'),
      })
      .returning('id');
    expect(endpoint).to.not.equal(undefined);
    const who = buyer();
    const { order, redirectUrl } = await buy(licensed, who);
    await completionOf(order.id);
    const license = await suite.deps.knex('licenses').where('order_id', order.id).first();
    expect(license.status).to.not.equal('revoked');

    // The card holder disputes: twice from the page, and the provider's webhook delivered again at once.
    const disputes = await Promise.all([choose(redirectUrl, 'disputed'), choose(redirectUrl, 'disputed')]);
    expect(disputes.map((d) => d.status)).to.deep.equal([200, 200]);
    const sandboxRow = await suite.deps
      .knex('sandbox_payments')
      .whereNotNull('dispute_event_id')
      .where('store_id', store.id)
      .first();
    const event = {
      id: sandboxRow.dispute_event_id as string,
      type: 'payment.disputed',
      created_at: new Date().toISOString(),
      data: {
        id: sandboxRow.id as string,
        status: 'paid',
        amount: 2000,
        currency: 'SAR',
        dispute: {
          id: 'dsp_dup',
          reason: 'fraudulent',
          amount: 2000,
          evidence_due_by: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        },
      },
    };
    // The same dispute under another event id, as a provider's retry with a new envelope would carry it.
    const again = { ...event, id: `${event.id}_2` };
    const key = sandboxWebhookKey(suite.deps.appSecret);
    const deliver = (body: unknown) => {
      const raw = JSON.stringify(body);
      return suite.server.request('/webhooks/sandbox', {
        method: 'POST',
        body: raw,
        headers: { 'Content-Type': 'application/json', 'X-Sandbox-Signature': signSandboxWebhook(key, raw) },
      });
    };
    const receipts = await Promise.all([deliver(event), deliver(event), deliver(again), deliver(again)]);
    for (const r of receipts) expect(r.status, r.text).to.equal(200);

    const detail = await waitFor('the order to show the dispute', async () => {
      const res = await merchant('GET', `/shawarma/orders/${order.id}`);
      const data = res.body.data as { disputed: boolean; dispute: { deadline: string } | null };
      return data.disputed ? data : undefined;
    });
    expect(detail.dispute!.deadline).to.be.a('string');
    await waitFor('every webhook event to be processed', async () => {
      const pending = await suite.deps
        .knex('webhook_events')
        .where('provider', 'sandbox')
        .whereIn('event_id', [event.id, again.id])
        .whereNull('processed_at');
      const all = await suite.deps.knex('webhook_events').whereIn('event_id', [event.id, again.id]);
      return all.length === 2 && pending.length === 0 ? true : undefined;
    });

    expect(await suite.deps.knex('order_disputes').where('order_id', order.id)).to.have.length(1);
    expect((await suite.deps.knex('licenses').where('order_id', order.id).first()).status).to.equal(
      'revoked',
    );
    const deliveries = await suite.deps
      .knex('merchant_webhook_deliveries')
      .where('store_id', store.id)
      .orderBy('id')
      .select('event_type', 'payload');
    expect(deliveries.map((d) => d.event_type)).to.deep.equal(['license.revoked', 'order.disputed']);
    expect(deliveries[1].payload.data).to.deep.include({
      order_id: order.id,
      amount: '20.00',
      licenses_revoked: 1,
    });

    // The buyer is blocked in the store: phone and e-mail.
    const settings = (await merchant('GET', '/shawarma/store')).body.data as {
      blocked_phones: { phone: string }[];
      settings: { blocked_emails: string[] };
    };
    expect(settings.blocked_phones.map((p) => p.phone)).to.include(who.customer_phone);
    expect(settings.settings.blocked_emails).to.include(who.customer_email);
    const retry = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: { product_id: licensed.id, quantity: 1, ...buyer({ customer_email: who.customer_email }) },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expectBlocked(retry);
  });

  it('a dispute of an order not yet delivered withholds its goods: Cancelled, keys back on sale', async () => {
    await setFraudSettings(suite.server, store, { review_above: '100.00' });
    const { order, redirectUrl } = await buy(keys, buyer());
    await settled(order.id, [ORDER_STATUS.UNDER_REVIEW]);
    const disputed = await choose(redirectUrl, 'disputed');
    expect(disputed.status).to.equal(200);
    const cancelled = await settled(order.id, [ORDER_STATUS.CANCELLED]);
    expect(cancelled.status).to.equal(ORDER_STATUS.CANCELLED);
    const codes = await suite.deps.knex('product_codes').where('product_id', keys.id).pluck('status');
    expect(codes.filter((s) => s === 'available')).to.have.length(4);
    // Approving it now is refused: a cancelled order cannot be delivered.
    const approve = await merchant('PUT', `/shawarma/orders/${order.id}`, { status: 4 });
    expect(approve.status).to.equal(422);
  });

  it('a dispute of a payment that was never paid is refused by the sandbox (409), and records nothing', async () => {
    const checkout = await guestCheckout(suite.server, store, { product_id: licensed.id }, buyer());
    const init = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    const redirectUrl = (init.body.data as { redirect_url: string }).redirect_url;
    await waitFor('the sandbox session', async () => {
      const page = await fetch(onServer(redirectUrl), { headers: { 'X-Forwarded-For': randomIp() } });
      const html = await page.text();
      return html.includes('value="paid"') ? true : undefined;
    });
    const res = await choose(redirectUrl, 'disputed');
    expect(res.status).to.equal(409);
    expect(await suite.deps.knex('order_disputes').where('store_id', store.id)).to.have.length(0);
  });
});
