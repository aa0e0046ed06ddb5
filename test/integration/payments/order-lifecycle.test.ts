import { expect } from 'chai';
import { ORDER_STATUS, Order, Product, Store } from '../../../db/models';
import { confirmManualPayment } from '../../../shared/services/payments';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import {
  browse,
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  usePaymentsSuite,
  waitFor,
} from './support';

/**
 * Whoever moves an order (a provider's confirmation, the fulfilment job, the merchant confirming a bank
 * transfer), the move goes through the order lifecycle (shared/services/orders/change-status.ts): one
 * status event naming who and why, and the merchant's `order.status_changed` webhook.
 */
describe('Order status changes by providers and workers go through the order lifecycle', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Lifecycle Keys' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    await createPaymentMethod(store, {
      method: 'bank',
      provider: 'bank',
      settings: { bank_name: 'Acme Bank', account_name: 'Acme LLC', account_number: '0001', iban: 'SA01' },
    });
    product = await createProduct(store, { name: 'Game key', type: 'code', price_minor: 5_000 });
    await suite.deps.knex('product_codes').insert([
      { product_id: product.id, code: `LC-${store.id}-1` },
      { product_id: product.id, code: `LC-${store.id}-2` },
    ]);
    await suite.deps.knex('merchant_webhook_endpoints').insert({
      store_id: store.id,
      url: 'http://127.0.0.1:9/lifecycle',
      events: ['order.status_changed'],
      secret_encrypted: suite.deps.cipher.encrypt('whsec_lifecycle'),
    });
  });

  const history = async (orderId: number) =>
    (await suite.deps.knex('order_status_events').where('order_id', orderId).orderBy('id')).map((e) => [
      e.from_status,
      e.to_status,
      e.source,
      (e.data as { reason?: string }).reason,
    ]);
  const statusWebhooks = async (orderId: number) =>
    (
      await suite.deps
        .knex('merchant_webhook_deliveries')
        .where({ store_id: store.id, event_type: 'order.status_changed' })
        .orderBy('id')
    )
      .map((d) => d.payload.data as { order_id: number; from: number; to: number; status_label: string })
      .filter((d) => d.order_id === orderId)
      .map((d) => [d.from, d.to, d.status_label]);

  it('records the provider’s payment and the fulfilment’s completion, each with its webhook', async () => {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500004401' },
    );
    const initiated = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(initiated.status, initiated.text).to.equal(200);
    const session = await sessionOf(
      paymentIdOf((initiated.body.data as { redirect_url: string }).redirect_url),
    );
    const sandboxUrl = `${suite.deps.config.publicBaseUrl}/sandbox/checkout/${session.provider_payment_id}`;
    expect((await browse(suite.server, sandboxUrl, { outcome: 'paid' })).status).to.equal(303);

    const order = await orderOf(checkout.checkoutId);
    expect((await completionOf(order.id)).status).to.equal(ORDER_STATUS.COMPLETED);
    const rows = await waitFor('both status events', async () => {
      const h = await history(order.id);
      return h.length >= 2 ? h : undefined;
    });
    expect(rows).to.deep.equal([
      [1, 3, 'provider', 'payment_confirmed'],
      [3, 4, 'system', 'fulfilled'],
    ]);
    expect(await statusWebhooks(order.id)).to.deep.equal([
      [1, 3, 'In progress'],
      [3, 4, 'Completed'],
    ]);
  });

  it('records the merchant’s confirmation of a bank transfer', async () => {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500004402' },
    );
    expect((await guestInitiate(suite.server, store, checkout.checkoutUrl, 'bank')).status).to.equal(200);
    const order = (await Order.query().findOne({ checkout_id: checkout.checkoutId }))!;
    expect(order.status).to.equal(ORDER_STATUS.UNDER_REVIEW);

    expect(await confirmManualPayment(suite.deps, order.id)).to.deep.equal({
      orderId: order.id,
      confirmed: true,
    });
    expect(await confirmManualPayment(suite.deps, order.id)).to.deep.equal({
      orderId: order.id,
      confirmed: false,
    });
    const done = await completionOf(order.id);
    expect(done.status).to.equal(ORDER_STATUS.COMPLETED);
    const rows = await waitFor('both status events', async () => {
      const h = await history(order.id);
      return h.length >= 2 ? h : undefined;
    });
    expect(rows).to.deep.equal([
      [2, 3, 'merchant', undefined],
      [3, 4, 'system', 'fulfilled'],
    ]);
    expect(await statusWebhooks(order.id)).to.deep.equal([
      [2, 3, 'In progress'],
      [3, 4, 'Completed'],
    ]);
  });
});
