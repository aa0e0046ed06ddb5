import crypto from 'node:crypto';
import { expect } from 'chai';
import { ORDER_STATUS, type Product, type Store } from '../../../db/models';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { randomIp } from '../../helpers/otp';
import { call, expectEnvelope } from '../merchant/support';
import { rawGet, upload } from '../files/support';
import {
  browse,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  usePaymentsSuite,
  waitFor,
} from '../payments/support';

interface OutboxEntry {
  to: string;
  channel: string;
  body: string;
  subject?: string;
  attachments?: string[];
}

/**
 * A digital product bought end to end (docs/downloads.md, docs/email.md): the merchant uploads a file
 * through the Merchant API, a buyer pays through the sandbox in Arabic, and the delivery reaches them by
 * message and by e-mail, each carrying the file's download address, which downloads the file; a refund
 * is e-mailed too, and the address is refused from then on. Everything through HTTP and real workers.
 */
describe('a digital product delivered by message and e-mail, with its download address', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;
  let token: string;
  const bytes = crypto.randomBytes(40_000);

  before(async () => {
    store = await createStore({ name: 'Maktaba Books' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { name: 'E-book', type: 'product', price_minor: 2_000 });
    token = await merchantToken(store);
    const uploaded = await upload(suite.server, token, product.id, bytes, 'guide.pdf');
    expect(uploaded.status, uploaded.text).to.equal(201);
  });

  const outbox = async (to: string): Promise<OutboxEntry[]> => {
    const res = await suite.server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.messages as OutboxEntry[];
  };
  /** The download address found in a text, pointed at the test server (built on PUBLIC_BASE_URL). */
  const downloadUrlIn = (text: string): string => {
    const match = /https?:\/\/[^\s"<>]+\/downloads\/[^\s"<>]+/.exec(text);
    expect(match, `no download address in: ${text}`).to.not.equal(null);
    return suite.server.url + new URL(match![0]).pathname;
  };

  it('e-mails the paid delivery in Arabic with the download address, which downloads; a refund is e-mailed and the address refused', async () => {
    const phone = `5007${String(store.id).padStart(5, '0')}`;
    const email = `buyer${store.id}@example.com`;
    const opened = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: {
        product_id: product.id,
        quantity: 1,
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: email,
        customer_phone: phone,
        customer_country_code: '966',
      },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp(), 'Accept-Language': 'ar' },
    });
    expect(opened.status, opened.text).to.equal(200);
    const { checkout_url: checkoutUrl, checkout_id: checkoutId } = opened.body.data as {
      checkout_url: string;
      checkout_id: number;
    };
    const initiated = await guestInitiate(suite.server, store, checkoutUrl, 'card');
    expect(initiated.status, initiated.text).to.equal(200);
    const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
    // The payment page takes the answer once the initiate job has opened the provider's session.
    await sessionOf(paymentIdOf(redirectUrl), 30_000);
    const paid = await browse(suite.server, redirectUrl, { outcome: 'paid' });
    expect(paid.status, paid.text).to.be.oneOf([200, 303]);
    const order = await orderOf(checkoutId, 20_000);

    // The message to the phone carries the download address.
    const message = await waitFor('the delivery message', async () => {
      const found = (await outbox(`966${phone}`)).find((m) => m.body.includes('/downloads/'));
      return found;
    });
    const fromMessage = downloadUrlIn(message.body);

    // The e-mail: subject or body names the order, Arabic text, the same download address.
    const mail = await waitFor('the delivery e-mail', async () =>
      (await outbox(email)).find(
        (m) => m.body.includes(String(order.number)) && m.body.includes('/downloads/'),
      ),
    );
    expect(mail.channel).to.equal('email');
    expect(`${mail.subject} ${mail.body}`).to.contain(`${order.number}`);
    expect(mail.subject).to.match(/[\u0600-\u06FF]/);
    expect(downloadUrlIn(mail.body)).to.equal(fromMessage);

    // Download it: the exact bytes, as an attachment, twice.
    for (let i = 0; i < 2; i += 1) {
      const got = await rawGet(fromMessage);
      expect(got.status).to.equal(200);
      expect(got.headers['content-disposition']).to.match(/^attachment/);
      expect(got.body.equals(bytes)).to.equal(true);
    }

    // A refund: e-mailed once it succeeds; the address answers 410 from then on.
    const refunded = await call(suite.server, token, 'PUT', `/shawarma/orders/${order.id}`, {
      status: ORDER_STATUS.REFUNDED,
    });
    expectEnvelope(refunded, 200);
    const refundMail = await waitFor('the refund e-mail', async () =>
      (await outbox(email)).find((m) => m !== undefined && m.subject !== mail.subject),
    );
    expect(`${refundMail.subject} ${refundMail.body}`).to.contain(`${order.number}`);
    const refused = await rawGet(fromMessage, { Accept: 'application/json' });
    expect(refused.status).to.equal(410);
    expect(JSON.parse(refused.body.toString()) as { error_code: string }).to.include({
      error_code: 'order_refunded',
    });
  });
});
