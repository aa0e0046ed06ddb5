import { expect } from 'chai';
import { ORDER_STATUS, type Order, type Product, type Store } from '../../../db/models';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { call, expectEnvelope } from '../merchant/support';
import { dashboardForm, dashboardLogin } from '../dashboard/support';
import { hostedMethod, usePaymentsSuite, waitFor } from '../payments/support';
import { buy, get, signInByPhone } from '../account/support';
import { localDate } from '../../../api/invoices/views';

interface OutboxEntry {
  to: string;
  channel: string;
  body: string;
  subject?: string;
}

/**
 * The store's order number wherever a person reads an order (docs/dashboard.md, "Order numbers"): the
 * buyer's delivery message and e-mail, the receipt page (with its local date, status, payment method and
 * buyer), the refund message and e-mail, the dashboard's refund confirmation and customers page (a guest
 * buyer included), and the buyer's account. Another store's orders come first, so the platform-wide id
 * and the store's number differ.
 */
describe('order numbers everywhere a person reads an order', function () {
  this.timeout(120_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;
  let order: Order;
  const phone = '594700001';
  const email = 'buyer@f40.test';

  before(async () => {
    const other = await createStore({ name: 'Earlier Store' });
    for (const p of ['594700091', '594700092', '594700093']) {
      await suite.deps.knex('orders').insert({
        store_id: other.id,
        status: 1,
        customer_first_name: 'Earlier',
        customer_last_name: 'Buyer',
        customer_email: 'earlier@f40.test',
        customer_country_code: '966',
        customer_phone: p,
        subtotal_minor: 100,
        total_minor: 100,
        currency: 'SAR',
      });
    }
    store = await createStore({ name: 'Numbers Store' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { name: 'Gift card', type: 'code', price_minor: 5_000 });
    await suite.deps.knex('product_codes').insert({ product_id: product.id, code: `F40-${store.id}-0001` });
    order = await buy(suite.deps, suite.server, store, product, { phone, email, first: 'Huda' });
    expect(order.number).to.equal(1);
    expect(order.id).to.not.equal(1);
  });

  const outbox = async (to: string): Promise<OutboxEntry[]> => {
    const res = await suite.server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.messages as OutboxEntry[];
  };

  it('the delivery message and e-mail name #1, not the platform-wide id', async () => {
    const message = await waitFor('the delivery message', async () =>
      (await outbox(`966${phone}`)).find((m) => m.body.includes(`F40-${store.id}-0001`)),
    );
    expect(message.body).to.contain('Numbers Store: your order #1 is ready.');
    expect(message.body).to.not.contain(`#${order.id}`);
    const mail = await waitFor('the delivery e-mail', async () =>
      (await outbox(email)).find((m) => m.body.includes(`F40-${store.id}-0001`)),
    );
    expect(mail.subject).to.equal('Your order #1 from Numbers Store');
    expect(mail.body).to.contain('Order #1 is ready');
    expect(`${mail.subject} ${mail.body}`).to.not.contain(`#${order.id}`);
  });

  it('the receipt page shows #1, the paid date in Riyadh time, the status, the payment method and the buyer', async () => {
    const message = await waitFor('the delivery message', async () =>
      (await outbox(`966${phone}`)).find((m) => m.body.includes('Receipt / الإيصال: ')),
    );
    const url = /Receipt \/ الإيصال: (\S+)/.exec(message.body)![1]!;
    const res = await get(suite.server, new URL(url).pathname);
    expect(res.status, res.text).to.equal(200);
    expect(res.text).to.contain('<title>Receipt #1 · Numbers Store</title>');
    expect(res.text).to.contain('<bdi>#1</bdi>');
    const payment = await suite.deps.knex('payments').where({ id: order.payment_id }).first('paid_at');
    const paid = localDate(new Date(payment.paid_at as Date).toISOString(), 'Asia/Riyadh');
    expect(res.text).to.contain(paid.en);
    expect(paid.en).to.match(/\d{1,2} \w{3} \d{4}, \d{2}:\d{2}/);
    expect(res.text).to.contain('Completed').and.to.contain('مكتمل');
    expect(res.text).to.contain('Credit card').and.to.contain('بطاقة ائتمانية');
    expect(res.text).to.contain('<bdi>Huda');
    // Riyadh is UTC+3: the hour shown is the local one, not the UTC one.
    const utcHour = new Date(payment.paid_at as Date).getUTCHours();
    expect(paid.en).to.contain(`${String((utcHour + 3) % 24).padStart(2, '0')}:`);
  });

  it('the dashboard’s refund confirmation and customers page (a guest buyer) name #1', async () => {
    const login = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, store.id, 'owner');
    const confirm = await suite.server.request(
      `/merchant/orders/${order.id}/refund`,
      dashboardForm(login, { amount: '50.00', reason: '' }),
    );
    expect(confirm.status, confirm.text).to.equal(200);
    expect(confirm.text).to.contain('all that is left of the payment for order #1?');
    expect(confirm.text).to.not.contain(`order #${order.id}?`);

    const customers = await suite.server.request('/merchant/customers', {
      headers: { cookie: login.cookie },
    });
    expect(customers.status, customers.text).to.equal(200);
    expect(customers.text).to.contain(
      `href="/merchant/orders/${order.id}" class="num" data-order-number="1">#1</a>`,
    );
    expect(customers.text).to.contain('data-guest');
    expect(customers.text).to.contain(`${phone}`);
  });

  it('the buyer’s account names the order by its number', async () => {
    const login = await signInByPhone(suite.deps, suite.server, phone);
    const page = await get(suite.server, '/account?lang=en', login.cookie);
    expect(page.status).to.equal(200);
    // The heading keeps the platform-wide id as text (the buyer-account contract); the store's number beside it.
    expect(page.text).to.contain(`id="order-${order.id}-h">Order ${order.id}</h3>`);
    expect(page.text).to.match(/data-store-order[^>]*>.*<span class="num">#1<\/span>/);
  });

  it('the refund message and e-mail name #1, and the receipt then says Refunded', async () => {
    const token = await merchantToken(store);
    const refunded = await call(suite.server, token, 'PUT', `/shawarma/orders/${order.id}`, {
      status: ORDER_STATUS.REFUNDED,
    });
    expectEnvelope(refunded, 200);
    const message = await waitFor('the refund message', async () =>
      (await outbox(`966${phone}`)).find((m) => m.body.includes('a refund of')),
    );
    expect(message.body).to.contain('for your order #1 ');
    const mail = await waitFor('the refund e-mail', async () =>
      (await outbox(email)).find((m) => m.subject === 'Refund for order #1'),
    );
    expect(mail.body).to.contain('for order #1.');
    const delivery = (await outbox(`966${phone}`)).find((m) => m.body.includes('Receipt / الإيصال: '))!;
    const url = /Receipt \/ الإيصال: (\S+)/.exec(delivery.body)![1]!;
    const res = await get(suite.server, new URL(url).pathname);
    expect(res.text).to.contain('Refunded').and.to.contain('مسترد');
  });
});
