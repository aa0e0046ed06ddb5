import { expect } from 'chai';
import { Order, Payment, PaymentEvent, Product, Store, WebhookEvent } from '../../../db/models';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import {
  browse,
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  statusOf,
  usePaymentsSuite,
  waitFor,
} from './support';

/**
 * The sandbox provider end to end (docs/operations.md), through real HTTP and real workers: checkout,
 * initiation, the platform's payment page, the sandbox's own page and form, its signed webhook to
 * /webhooks/sandbox, reconciliation, fulfilment, the keys in the outbox.
 */
describe('sandbox provider: checkout to fulfilled order', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Acme Digital' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    await hostedMethod(suite.deps, store, 'mada', 'sandbox');
    product = await createProduct(store, { name: 'Game key', type: 'code', price_minor: 5_000 });
    await suite.deps.knex('product_codes').insert([
      { product_id: product.id, code: `KEY-${store.id}-0001` },
      { product_id: product.id, code: `KEY-${store.id}-0002` },
    ]);
  });

  async function outboxBodies(to: string): Promise<string[]> {
    const res = await suite.server.request(`/__dev/outbox?to=${to}`);
    return (res.body.messages as { body: string }[]).map((m) => m.body);
  }

  it('pays through the sandbox’s page and signed webhook, creates the order once and delivers the key', async () => {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500000101' },
    );
    const initiated = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(initiated.status, initiated.text).to.equal(200);
    expect(initiated.body.data).to.have.keys(['type', 'redirect_url']);
    const { redirect_url: redirectUrl } = initiated.body.data as { redirect_url: string };
    expect(redirectUrl.startsWith(`${suite.deps.config.publicBaseUrl}/pay/payments/`)).to.equal(true);

    const paymentId = paymentIdOf(redirectUrl);
    const session = await sessionOf(paymentId);
    expect(session.status).to.equal('initiated');

    // The platform's payment page is the sandbox's page itself (docs/operations.md); the provider's own
    // address (provider_url) shows the same buttons.
    const sandboxUrl = `${suite.deps.config.publicBaseUrl}/sandbox/checkout/${session.provider_payment_id}`;
    expect(session.provider_url).to.equal(sandboxUrl);
    for (const url of [redirectUrl, sandboxUrl]) {
      const page = await browse(suite.server, url);
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.text).to.match(/SAR\s50\.00/);
      expect(page.text).to.match(/<button type="submit">Pay<\/button>/);
      expect(page.text).to.match(/<button type="submit" class="danger">Fail<\/button>/);
      expect(page.text)
        .to.contain('name="outcome" value="paid"')
        .and.to.contain('name="outcome" value="failed"');
    }
    expect((await statusOf(suite.server, checkout.checkoutUrl)).body).to.deep.equal({
      success: true,
      data: { is_paid: false, order_id: null },
    });

    const paid = await browse(suite.server, sandboxUrl, { outcome: 'paid' });
    expect(paid.status).to.equal(303);
    expect(paid.headers.get('location')).to.equal(`${redirectUrl}?return=1`);

    const order = await orderOf(checkout.checkoutId);
    const completed = await completionOf(order.id);
    expect(completed.payment_id).to.equal(paymentId);
    expect(completed.payment_method).to.equal('card');

    const status = await statusOf(suite.server, checkout.checkoutUrl);
    expect(status.body).to.deep.equal({ success: true, data: { is_paid: true, order_id: order.id } });

    const bodies = await waitFor('the key in the outbox', async () => {
      const all = await outboxBodies('966500000101');
      return all.some((b) => b.includes(`KEY-${store.id}-0001`)) ? all : undefined;
    });
    expect(bodies.filter((b) => b.includes(`#${order.number}`))).to.have.length(1);
    expect(bodies.join('\n')).to.not.contain(`KEY-${store.id}-0002`);

    // The audit trail: created by the API, session by the worker, paid on the webhook.
    const events = await PaymentEvent.query().where('payment_id', paymentId).orderBy('id');
    expect(events.map((e) => [e.from_status, e.to_status, e.source])).to.deep.equal([
      [null, 'pending', 'api'],
      ['pending', 'initiated', 'worker'],
      ['initiated', 'paid', 'webhook'],
    ]);
    const stored = await WebhookEvent.query().where('provider', 'sandbox');
    const mine = stored.filter((e) => JSON.stringify(e.payload).includes(session.provider_payment_id ?? '-'));
    expect(mine).to.have.length(1);
    await waitFor(
      'the event to be marked processed',
      async () => (await WebhookEvent.query().findById(mine[0].id))?.processed_at,
    );

    // Back on the store's page: the outcome, not another trip to the provider.
    const back = await browse(suite.server, `${redirectUrl}?return=1`);
    expect(back.status).to.equal(200);
    expect(back.text).to.contain('your payment was received').and.to.contain(`#${order.number}`);
    expect(back.text).to.contain('Your key is sent by WhatsApp').and.to.contain('+966 ••••••101');
  });

  it('a declined payment leaves the checkout payable: the page shows the error and Retry pays with a new session', async () => {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500000102' },
    );
    const first = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    const redirectUrl = (first.body.data as { redirect_url: string }).redirect_url;
    const firstId = paymentIdOf(redirectUrl);
    const session = await sessionOf(firstId);

    const declined = await browse(
      suite.server,
      `${suite.deps.config.publicBaseUrl}/sandbox/checkout/${session.provider_payment_id}`,
      {
        outcome: 'failed',
      },
    );
    expect(declined.status).to.equal(303);
    await waitFor(
      'the payment to fail',
      async () => (await Payment.query().findById(firstId))?.status === 'failed',
    );

    expect((await statusOf(suite.server, checkout.checkoutUrl)).body).to.deep.equal({
      success: true,
      data: { is_paid: false, order_id: null },
    });
    expect(await Order.query().findOne({ checkout_id: checkout.checkoutId })).to.equal(undefined);

    const failedPage = await browse(suite.server, `${redirectUrl}?return=1`);
    expect(failedPage.status).to.equal(200);
    expect(failedPage.text).to.contain('The payment was declined (sandbox)');
    expect(failedPage.text).to.contain('Retry with Credit card');

    const retry = await browse(suite.server, `${new URL(redirectUrl).pathname}/retry`, {});
    expect(retry.status).to.equal(303);
    const secondUrl = retry.headers.get('location') ?? '';
    const secondId = paymentIdOf(secondUrl);
    expect(secondId).to.not.equal(firstId);
    const second = await sessionOf(secondId);
    await browse(
      suite.server,
      `${suite.deps.config.publicBaseUrl}/sandbox/checkout/${second.provider_payment_id}`,
      {
        outcome: 'paid',
      },
    );
    const order = await orderOf(checkout.checkoutId);
    expect(order.payment_id).to.equal(secondId);
    expect((await Payment.query().findById(firstId))?.status).to.equal('failed');

    // The embed client may also simply initiate again; once the order exists that is refused.
    const again = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(again.status).to.equal(400);
    expect(again.body).to.deep.equal({
      success: false,
      error_code: 'order_already_created',
      message: 'Order already created for this checkout',
    });
  });

  it('the checkout’s hosted page (payment_url) offers the store’s methods and starts the chosen one', async () => {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500000103' },
    );
    expect(checkout.paymentUrl.startsWith(`${suite.deps.config.publicBaseUrl}/pay/`)).to.equal(true);
    const page = await browse(suite.server, checkout.paymentUrl);
    expect(page.status).to.equal(200);
    expect(page.headers.get('cache-control')).to.equal('no-store');
    expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
    // One form: a radio per method (its localized name and mark) and one Pay button with the amount.
    expect(page.text).to.contain('name="payment_method" value="card"').and.to.contain('Credit card');
    expect(page.text).to.contain('name="payment_method" value="mada"').and.to.contain('Mada');
    expect(page.text)
      .to.contain('Game key')
      .and.to.match(/Pay SAR\s50\.00/);

    const chosen = await browse(suite.server, checkout.paymentUrl, { payment_method: 'mada' });
    expect(chosen.status).to.equal(303);
    const paymentId = paymentIdOf(chosen.headers.get('location') ?? '');
    expect((await Payment.query().findById(paymentId))?.method).to.equal('mada');

    const unknown = await browse(suite.server, checkout.paymentUrl, { payment_method: 'cash' });
    expect(unknown.status).to.equal(422);
    expect(unknown.text).to.contain('Invalid payment method');
    expect((await browse(suite.server, '/pay/not-a-checkout')).status).to.equal(404);
  });
});
