import { expect } from 'chai';
import { ORDER_STATUS, Order, Payment, PaymentEvent, Product, Store } from '../../../db/models';
import { confirmManualPayment } from '../../../shared/services/payments';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { browse, completionOf, guestInitiate, statusOf, usePaymentsSuite, waitFor } from './support';

const BANK = {
  bank_name: 'Acme Bank',
  account_name: 'Acme LLC',
  account_number: '0001',
  iban: 'SA0000000000000000000001',
};

/**
 * PayPal and bank transfer: no provider is called; the order waits in Under review until the merchant
 * confirms the payment (confirmManualPayment, which the Merchant API will call), then it is fulfilled.
 */
describe('PayPal and bank transfer: checkout to fulfilled order', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Keys & Co', currency: 'SAR' });
    await createPaymentMethod(store, { method: 'bank', provider: 'bank', settings: BANK });
    await createPaymentMethod(store, {
      method: 'paypal',
      provider: 'paypal',
      settings: { email: 'pay@keys.test' },
    });
    product = await createProduct(store, { name: 'Gift card', type: 'code', price_minor: 4_000 });
    await suite.deps.knex('product_codes').insert([
      { product_id: product.id, code: `GIFT-${store.id}-A` },
      { product_id: product.id, code: `GIFT-${store.id}-B` },
    ]);
  });

  it('bank transfer: instructions, an order Under review holding the key, fulfilled once the merchant confirms', async () => {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500000401' },
    );
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'bank');
    expect(res.status, res.text).to.equal(200);
    const { pay_by: payBy, ...answer } = res.body.data as { pay_by: string };
    expect(res.body.success).to.equal(true);
    // The order the merchant sees, named to the buyer at once.
    const placed = await Order.query().findOne({ checkout_id: checkout.checkoutId });
    expect(answer).to.deep.equal({
      type: 'bank_transfer',
      bank_details: BANK,
      amount: 40,
      checkout_url: checkout.checkoutUrl,
      payment_days: 3,
      order_id: placed!.id,
      reference: `#${placed!.id}`,
    });
    // The store's deadline (3 days by default) from now.
    expect(Math.abs(new Date(payBy).getTime() - (Date.now() + 3 * 86_400_000))).to.be.below(60_000);

    const order = await Order.query().findOne({ checkout_id: checkout.checkoutId });
    expect(order).to.deep.include({ status: ORDER_STATUS.UNDER_REVIEW, payment_method: 'bank' });
    const payment = await Payment.query().findById(order?.payment_id ?? 0);
    expect(payment).to.deep.include({ status: 'initiated', provider: 'bank' });
    const sold = await suite.deps.knex('product_codes').where({ product_id: product.id, status: 'sold' });
    expect(sold).to.have.length(1);
    expect((await statusOf(suite.server, checkout.checkoutUrl)).body).to.deep.equal({
      success: true,
      // The order exists (the buyer has its id from the answer above), but is not paid: null until then.
      data: { is_paid: false, order_id: null },
    });
    const page = await browse(suite.server, checkout.paymentUrl);
    expect(page.text).to.contain('waiting for your payment').and.to.contain(BANK.iban);
    const second = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'paypal');
    expect(second.body).to.deep.equal({
      success: false,
      error_code: 'order_already_created',
      message: 'Order already created for this checkout',
    });

    expect(await confirmManualPayment(suite.deps, order?.id ?? 0)).to.deep.equal({
      orderId: order?.id,
      confirmed: true,
    });
    const done = await completionOf(order?.id ?? 0);
    expect((await Payment.query().findById(done.payment_id ?? 0))?.status).to.equal('paid');
    const merchantEvent = await PaymentEvent.query().findOne({
      payment_id: done.payment_id ?? 0,
      to_status: 'paid',
    });
    expect(merchantEvent?.source).to.equal('merchant');
    expect((await statusOf(suite.server, checkout.checkoutUrl)).body).to.deep.equal({
      success: true,
      data: { is_paid: true, order_id: done.id },
    });
    await waitFor('the key in the outbox', async () => {
      const out = await suite.server.request('/__dev/outbox?to=966500000401');
      return (out.body.messages as { body: string }[]).some((m) => m.body.includes(`GIFT-${store.id}-A`));
    });
    // Confirming again changes nothing.
    expect((await confirmManualPayment(suite.deps, done.id)).confirmed).to.equal(false);
  });

  it('PayPal with only an e-mail: paypal_manual with the amount; the merchant confirms', async () => {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: '500000402' },
    );
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'paypal');
    expect(res.body).to.deep.equal({
      success: true,
      data: {
        type: 'paypal_manual',
        paypal_email: 'pay@keys.test',
        amount: 40,
        checkout_url: checkout.checkoutUrl,
        payment_days: 3,
        pay_by: (res.body.data as { pay_by: string }).pay_by,
        order_id: (await Order.query().findOne({ checkout_id: checkout.checkoutId }))!.id,
        reference: `#${(res.body.data as { order_id: number }).order_id}`,
      },
    });
    const order = await Order.query().findOne({ checkout_id: checkout.checkoutId });
    expect(order?.status).to.equal(ORDER_STATUS.UNDER_REVIEW);
    await confirmManualPayment(suite.deps, order?.id ?? 0);
    await completionOf(order?.id ?? 0);
  });

  it('PayPal with a pay-by-link: redirect to the link, amount filled in where PayPal.me allows', async () => {
    const usd = await createStore({ currency: 'USD' });
    await createPaymentMethod(usd, {
      method: 'paypal',
      provider: 'paypal',
      settings: { email: 'a@b.test', pay_link: 'https://paypal.me/keysco' },
    });
    const item = await createProduct(usd, { price_minor: 1_999 });
    const checkout = await guestCheckout(suite.server, usd, { product_id: item.id });
    const res = await guestInitiate(suite.server, usd, checkout.checkoutUrl, 'paypal');
    expect(res.body).to.deep.equal({
      success: true,
      data: { type: 'redirect', redirect_url: 'https://paypal.me/keysco/19.99USD' },
    });
    const order = await Order.query().findOne({ checkout_id: checkout.checkoutId });
    expect(order).to.deep.include({ status: ORDER_STATUS.UNDER_REVIEW, payment_method: 'paypal' });
    await confirmManualPayment(suite.deps, order?.id ?? 0);
    await completionOf(order?.id ?? 0);
  });

  it('a bank method without complete details is not configured', async () => {
    const partial = await createStore();
    await createPaymentMethod(partial, { method: 'bank', provider: 'bank', settings: { bank_name: 'X' } });
    await createPaymentMethod(partial, { method: 'card', provider: 'sandbox' });
    const item = await createProduct(partial, { price_minor: 1_000 });
    const checkout = await guestCheckout(suite.server, partial, { product_id: item.id });
    const res = await guestInitiate(suite.server, partial, checkout.checkoutUrl, 'bank');
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      success: false,
      error_code: 'payment_method_not_configured',
      message: 'Payment method not configured for this store',
    });
  });
});
