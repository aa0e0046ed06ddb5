import { expect } from 'chai';
import { Order, Payment, Product, Store, WebhookEvent } from '../../../db/models';
import { createProduct, createStore } from '../../helpers/builders';
import { FakeCoinbase } from '../../helpers/fake-coinbase';
import { randomIp } from '../../helpers/otp';
import {
  browse,
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  startHostedPayment,
  statusOf,
  usePaymentsSuite,
  waitFor,
} from './support';

const API_KEY = 'cb_api_key_acme';
const SHARED_SECRET = 'cb_shared_secret_acme';

/** Coinbase Commerce hosted charges for crypto, against a local Coinbase Commerce, with real workers. */
describe('Coinbase Commerce: checkout to fulfilled order', function () {
  this.timeout(30_000);
  const coinbase = new FakeCoinbase([API_KEY]);
  const suite = usePaymentsSuite({ fake: { server: coinbase, urlVariable: 'COINBASE_API_URL' } });
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Crypto Corner', currency: 'USD' });
    await hostedMethod(suite.deps, store, 'coinbase', 'coinbase', {
      api_key: API_KEY,
      webhook_secret: SHARED_SECRET,
    });
    product = await createProduct(store, { name: 'E-book', type: 'product', price_minor: 2_500 });
  });

  function postWebhook(raw: string, signature: string) {
    return suite.server.request('/webhooks/coinbase', {
      method: 'POST',
      body: raw,
      headers: {
        'Content-Type': 'application/json',
        'X-CC-Webhook-Signature': signature,
        'X-Forwarded-For': randomIp(),
      },
    });
  }

  async function started(phone: string) {
    const begun = await startHostedPayment(suite.server, store, product, 'coinbase', { phone });
    return { ...begun, chargeId: begun.payment.provider_payment_id ?? '' };
  }

  it('charge in the store’s currency; pending waits for confirmation; a signed charge:confirmed creates the order', async () => {
    const { checkout, redirectUrl, payment, chargeId } = await started('500000301');
    const charge = coinbase.charges.get(chargeId);
    expect(charge?.pricing.local).to.deep.equal({ amount: '25.00', currency: 'USD' });
    expect((await browse(suite.server, redirectUrl)).headers.get('location')).to.equal(charge?.hosted_url);

    coinbase.advance(chargeId, 'PENDING');
    const pending = coinbase.webhook(chargeId, 'charge:pending', SHARED_SECRET);
    expect((await postWebhook(pending.raw, pending.signature)).status).to.equal(200);
    await waitFor('the pending event to be processed', async () => {
      const rows = await WebhookEvent.query().where('provider', 'coinbase').whereNotNull('processed_at');
      return rows.some((r) => JSON.stringify(r.payload).includes(chargeId));
    });
    expect((await Payment.query().findById(payment.id))?.status, 'not confirmed on chain yet').to.equal(
      'initiated',
    );
    expect((await statusOf(suite.server, checkout.checkoutUrl)).body).to.deep.equal({
      success: true,
      data: { is_paid: false, order_id: null },
    });

    coinbase.advance(chargeId, 'COMPLETED');
    const confirmed = coinbase.webhook(chargeId, 'charge:confirmed', SHARED_SECRET);
    // Signed with another secret, or with the body changed after signing: refused, nothing kept.
    const forged = coinbase.webhook(chargeId, 'charge:confirmed', 'guessed-secret');
    expect((await postWebhook(forged.raw, forged.signature)).status).to.equal(401);
    expect(
      (
        await postWebhook(
          confirmed.raw.replace('"attempt_number":1', '"attempt_number":2'),
          confirmed.signature,
        )
      ).status,
    ).to.equal(401);
    expect(await Order.query().findOne({ checkout_id: checkout.checkoutId })).to.equal(undefined);

    expect((await postWebhook(confirmed.raw, confirmed.signature)).status).to.equal(200);
    const order = await orderOf(checkout.checkoutId);
    await completionOf(order.id);
    expect((await statusOf(suite.server, checkout.checkoutUrl)).body).to.deep.equal({
      success: true,
      data: { is_paid: true, order_id: order.id },
    });
  });

  it('an expired charge fails the payment and the checkout can be paid again', async () => {
    const { checkout, payment, chargeId } = await started('500000302');
    coinbase.advance(chargeId, 'EXPIRED');
    const failed = coinbase.webhook(chargeId, 'charge:failed', SHARED_SECRET);
    expect((await postWebhook(failed.raw, failed.signature)).status).to.equal(200);
    await waitFor(
      'the payment to fail',
      async () => (await Payment.query().findById(payment.id))?.status === 'failed',
    );
    expect(await Order.query().findOne({ checkout_id: checkout.checkoutId })).to.equal(undefined);
    const again = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'coinbase');
    expect(again.status).to.equal(200);
    expect(paymentIdOf((again.body.data as { redirect_url: string }).redirect_url)).to.not.equal(payment.id);
  });
});
