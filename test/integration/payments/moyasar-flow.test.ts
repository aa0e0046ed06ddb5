import { expect } from 'chai';
import { Checkout, Order, Payment, PaymentEvent, Product, Store, WebhookEvent } from '../../../db/models';
import { sweepPayments } from '../../../shared/services/payments';
import {
  PROVIDER_REFUSED_MESSAGE,
  PROVIDER_UNAVAILABLE_MESSAGE,
} from '../../../shared/services/payments/session';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { FakeMoyasar } from '../../helpers/fake-moyasar';
import { randomIp } from '../../helpers/otp';
import {
  browse,
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  startHostedPayment,
  statusOf,
  usePaymentsSuite,
  waitFor,
} from './support';

const SECRET_KEY = 'sk_test_acme';
const WEBHOOK_SECRET = 'whsec_acme_moyasar';

/** Moyasar hosted invoices for card, mada, Apple Pay and STC Pay, against a local Moyasar, with real workers. */
describe('Moyasar: checkout to fulfilled order', function () {
  this.timeout(30_000);
  const moyasar = new FakeMoyasar([SECRET_KEY]);
  const suite = usePaymentsSuite({ fake: { server: moyasar, urlVariable: 'MOYASAR_API_URL' } });
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Acme Software' });
    for (const method of ['card', 'mada', 'applepay', 'stcpay'] as const) {
      await hostedMethod(suite.deps, store, method, 'moyasar', {
        secret_key: SECRET_KEY,
        webhook_secret: WEBHOOK_SECRET,
      });
    }
    product = await createProduct(store, {
      name: 'Editor Pro',
      price_minor: 12_000,
      license_enabled: true,
      license_prefix: 'EDIT',
      license_lock_type: 'hwid',
      license_max_activations: 2,
    });
  });

  function postWebhook(raw: string) {
    return suite.server.request('/webhooks/moyasar', {
      method: 'POST',
      body: raw,
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() },
    });
  }

  async function started(method: string, quantity = 1, phone = '500000201') {
    const begun = await startHostedPayment(suite.server, store, product, method, { phone, quantity });
    return { ...begun, invoiceId: begun.payment.provider_payment_id ?? '' };
  }

  it('card: invoice in halalas, forward to Moyasar, webhook verified by secret token, one order, keys active', async () => {
    const { checkout, redirectUrl, payment, invoiceId } = await started('card', 2);
    expect(payment.status).to.equal('initiated');
    const invoice = moyasar.invoices.get(invoiceId);
    expect(invoice?.amount).to.equal(24_000);
    expect(invoice?.success_url).to.equal(`${redirectUrl}?return=1`);
    const lapses = (await Checkout.query().findById(checkout.checkoutId))?.expires_at;
    expect(invoice?.expired_at, 'the invoice lapses with the checkout').to.equal(lapses?.toISOString());
    const forward = await browse(suite.server, redirectUrl);
    expect(forward.status).to.equal(302);
    expect(forward.headers.get('location')).to.equal(invoice?.url);

    moyasar.pay(invoiceId);
    // A forged webhook (wrong secret token) is refused and changes nothing.
    const forged = await postWebhook(moyasar.webhook(invoiceId, 'whsec_guess'));
    expect(forged.status).to.equal(401);
    expect(forged.body).to.deep.equal({
      error_code: 'unauthenticated',
      message: 'Invalid webhook signature',
      doc_url: '/docs/errors.md#unauthenticated',
    });
    const kept = WebhookEvent.query()
      .where('provider', 'moyasar')
      .whereRaw("payload->'data'->>'invoice_id' = ?", [invoiceId]);
    expect(await kept.resultSize()).to.equal(0);
    expect((await Payment.query().findById(payment.id))?.status).to.equal('initiated');
    expect(await Order.query().findOne({ checkout_id: checkout.checkoutId })).to.equal(undefined);

    const raw = moyasar.webhook(invoiceId, WEBHOOK_SECRET, { eventId: `evt-${invoiceId}` });
    const accepted = await postWebhook(raw);
    expect(accepted.status).to.equal(200);
    expect(accepted.body).to.deep.equal({ received: true, status: 'queued', event_id: `evt-${invoiceId}` });
    const stored = await WebhookEvent.query().findOne({ provider: 'moyasar', event_id: `evt-${invoiceId}` });
    expect(stored?.payload, 'the secret token is not kept').to.not.have.property('secret_token');

    const order = await orderOf(checkout.checkoutId);
    const done = await completionOf(order.id);
    expect(done.payment_method).to.equal('card');
    const licenses = await waitFor('active licenses', async () => {
      const rows = await suite.deps.knex('licenses').where('order_id', order.id).orderBy('unit');
      return rows.length === 2 && rows.every((l: { status: string }) => l.status === 'active')
        ? rows
        : undefined;
    });
    for (const license of licenses) {
      expect(license.key).to.match(/^EDIT(-[A-HJ-NP-Z2-9]{4}){4}$/);
      expect(license).to.include({ lock_type: 'hwid', max_activations: 2, expires_at: null });
    }

    // The same webhook again is acknowledged and changes nothing.
    const replay = await postWebhook(raw);
    expect(replay.body).to.deep.include({ received: true, status: 'duplicate' });
    expect(await Order.query().where('checkout_id', checkout.checkoutId).resultSize()).to.equal(1);
  });

  it('a declined card fails the payment and leaves the checkout payable', async () => {
    const { checkout, payment, invoiceId } = await started('mada', 1, '500000202');
    moyasar.decline(invoiceId, 'Insufficient Funds');
    expect((await postWebhook(moyasar.webhook(invoiceId, WEBHOOK_SECRET))).status).to.equal(200);
    const failed = await waitFor('the payment to fail', async () => {
      const p = await Payment.query().findById(payment.id);
      return p?.status === 'failed' ? p : undefined;
    });
    expect(failed.error_message).to.equal('Insufficient Funds');
    expect((await statusOf(suite.server, checkout.checkoutUrl)).body).to.deep.equal({
      success: true,
      data: { is_paid: false, order_id: null },
    });
    const again = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'applepay');
    expect(again.status).to.equal(200);
  });

  it('a paid amount that differs from the checkout creates no order', async () => {
    const { checkout, payment, invoiceId } = await started('stcpay', 1, '500000203');
    moyasar.pay(invoiceId, { amount: 100 });
    await postWebhook(moyasar.webhook(invoiceId, WEBHOOK_SECRET));
    const failed = await waitFor('the mismatch to be recorded', async () => {
      const p = await Payment.query().findById(payment.id);
      return p?.status === 'failed' ? p : undefined;
    });
    expect(failed.error_message).to.equal('The amount paid does not match the order total.');
    const audit = await PaymentEvent.query().where({ payment_id: payment.id, to_status: 'failed' }).first();
    expect(String(audit?.data.reason)).to.contain('provider reports 1.00 SAR, checkout is 120.00 SAR');
    expect(await Order.query().findOne({ checkout_id: checkout.checkoutId })).to.equal(undefined);
  });

  it('without any webhook, the customer’s return and the sweep still complete the order', async () => {
    const viaReturn = await started('card', 1, '500000204');
    moyasar.pay(viaReturn.invoiceId);
    const back = await browse(suite.server, `${viaReturn.redirectUrl}?return=1`);
    expect(back.status).to.equal(200);
    expect(back.text).to.contain('Confirming your payment');
    await orderOf(viaReturn.checkout.checkoutId);

    const viaSweep = await started('card', 1, '500000205');
    moyasar.pay(viaSweep.invoiceId);
    const later = new Date(Date.now() + 5 * 60_000);
    const swept = await sweepPayments(suite.deps.knex, later, { queues: suite.deps.queues });
    expect(swept.reconcile).to.be.at.least(1);
    const order = await orderOf(viaSweep.checkout.checkoutId);
    const events = await PaymentEvent.query().where({ payment_id: viaSweep.payment.id, to_status: 'paid' });
    expect(events.map((e) => e.source)).to.deep.equal(['sweep']);
    expect(order.payment_id).to.equal(viaSweep.payment.id);
  });

  it('provider trouble: 5xx is retried; a refusal or a lasting outage shows the error with a Retry on the payment page', async () => {
    moyasar.failNext('5xx', 2);
    const retried = await started('card', 1, '500000206');
    expect(retried.payment.status).to.equal('initiated');

    const refusing = await createStore();
    await hostedMethod(suite.deps, refusing, 'card', 'moyasar', {
      secret_key: 'sk_test_revoked',
      webhook_secret: 'x',
    });
    const item = await createProduct(refusing, { price_minor: 5_000 });
    const checkout = await guestCheckout(suite.server, refusing, { product_id: item.id });
    const res = await guestInitiate(suite.server, refusing, checkout.checkoutUrl, 'card');
    const redirectUrl = (res.body.data as { redirect_url: string }).redirect_url;
    const refused = await sessionOf(paymentIdOf(redirectUrl));
    expect(refused).to.include({ status: 'failed', error_message: PROVIDER_REFUSED_MESSAGE });
    const page = await browse(suite.server, redirectUrl);
    expect(page.status).to.equal(200);
    expect(page.text).to.contain(PROVIDER_REFUSED_MESSAGE).and.to.contain('Retry with Credit card');

    moyasar.failNext('timeout', 3);
    const outage = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500000207' },
    );
    const started2 = await guestInitiate(suite.server, store, outage.checkoutUrl, 'card');
    const outageUrl = (started2.body.data as { redirect_url: string }).redirect_url;
    const unavailable = await sessionOf(paymentIdOf(outageUrl), 15_000);
    expect(unavailable).to.include({ status: 'failed', error_message: PROVIDER_UNAVAILABLE_MESSAGE });
    const retry = await browse(suite.server, `${new URL(outageUrl).pathname}/retry`, {});
    expect(retry.status).to.equal(303);
    const fresh = await sessionOf(paymentIdOf(retry.headers.get('location') ?? ''));
    expect(fresh.status).to.equal('initiated');
  });
});
