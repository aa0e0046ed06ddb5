import { expect } from 'chai';
import { Checkout, CheckoutUpload, Order } from '../../../db/models';
import { loadFixture, type StoreManifest } from '../../../shared/services/seed';
import { randomIp } from '../../helpers/otp';
import { browse, orderOf, paymentIdOf, usePaymentsSuite, waitFor } from '../payments/support';

/**
 * The hosted checkout of a product page (docs/store-pages.md; the operator contract's "buying"): the
 * form's conventions, refusals as the form again, and a purchase through the sandbox to the order id,
 * made by the Embed API's own checkout service (a coupon, the store's blocked phones and the custom field
 * rules apply as they do there).
 */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const fixture = {
  stores: [
    {
      ref: 'i42-checkout',
      slug: 'i42-checkout',
      name: 'Checkout i42',
      currency: 'SAR',
      payment_methods: { card: { provider: 'sandbox' }, mada: { provider: 'sandbox' } },
      products: [
        {
          ref: 'skin',
          name: 'Skin pack',
          name_ar: 'حزمة أشكال',
          slug: 'skin-pack',
          type: 'code',
          price: '30.00',
          codes: ['I42-S-0001', 'I42-S-0002', 'I42-S-0003'],
          fields: [
            { type: 'text', label: 'Player name', label_ar: 'اسم اللاعب', required: true },
            { type: 'image', label: 'Avatar', label_ar: 'الصورة', required: false },
          ],
        },
      ],
      coupons: [{ code: 'I42TEN', type: 'percentage', amount: '10', active: true }],
    },
  ],
};

describe('store pages: the hosted checkout', function () {
  this.timeout(40_000);
  const suite = usePaymentsSuite();
  let m: StoreManifest;

  before(async () => {
    m = (await loadFixture(suite.deps, fixture)).stores['i42-checkout'];
  });

  const checkoutPath = '/s/i42-checkout/checkout/skin-pack';

  function form(values: Record<string, string>, avatar = false): FormData {
    const body = new FormData();
    for (const [k, v] of Object.entries(values)) body.append(k, v);
    if (avatar) body.append('field_files.1', new Blob([PNG], { type: 'image/png' }), 'me.png');
    return body;
  }

  const buyer = {
    customer_first_name: 'Noura',
    customer_last_name: 'Saleh',
    customer_email: 'noura@i42.test',
    customer_country_code: '966',
    customer_phone: '594200010',
    quantity: '1',
    'fields.0': 'Noura99',
    payment_method: 'card',
  };

  const post = (body: FormData, lang = 'en') =>
    suite.server.request(`${checkoutPath}?lang=${lang}`, {
      method: 'POST',
      body,
      redirect: 'manual',
      headers: { 'X-Forwarded-For': randomIp() },
    });

  it('is reached from the product page and has the widget’s form conventions', async () => {
    const product = await suite.server.request('/s/i42-checkout/p/skin-pack?lang=ar');
    expect(product.text).to.contain(`data-buy href="${checkoutPath}?lang=ar"`);
    const page = await suite.server.request(`${checkoutPath}?lang=ar`);
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('dir="rtl"').and.to.contain('enctype="multipart/form-data"');
    for (const token of ['given-name', 'family-name', 'email', 'tel-national', 'tel-country-code']) {
      expect(page.text).to.contain(`autocomplete="${token}"`);
    }
    expect(page.text).to.contain('type="radio" name="payment_method" value="card"');
    expect(page.text).to.contain('type="radio" name="payment_method" value="mada"');
    expect(page.text).to.contain('name="coupon_code"');
    expect(page.text).to.contain('اسم اللاعب').and.to.contain('type="file" name="field_files.1"');
    expect(page.text).to.contain('<meta name="robots" content="noindex">');
  });

  it('gives the form again, each bad field named, and creates nothing', async () => {
    const before = await Checkout.query(suite.deps.knex).where('store_id', m.id).resultSize();
    const res = await post(form({ ...buyer, customer_email: 'not-an-email', customer_phone: '12' }));
    expect(res.status).to.equal(422);
    expect(res.text).to.contain('id="e-customer_email"').and.to.contain('id="e-customer_phone"');
    expect(res.text).to.contain('aria-invalid="true"').and.to.contain('value="Noura"');
    // The checkout service's own rules: a required custom field, the product's max_per_order.
    const field = await post(form({ ...buyer, 'fields.0': '' }));
    expect(field.status).to.equal(422);
    expect(field.text).to.contain('id="e-fields-0"');
    const many = await post(form({ ...buyer, quantity: '11' }));
    expect(many.status).to.equal(422);
    expect(many.text).to.contain('id="e-quantity"');
    const wrongMethod = await post(form({ ...buyer, payment_method: 'bitcoin' }));
    expect(wrongMethod.status).to.equal(422);
    expect(wrongMethod.text).to.contain('id="e-payment_method"');
    expect(await Checkout.query(suite.deps.knex).where('store_id', m.id).resultSize()).to.equal(before);
  });

  it('says what is wrong beside each field in Arabic on an Arabic page, and in English on an English one', async () => {
    const errorOf = (html: string, key: string): string | undefined =>
      [...html.matchAll(/<p class="error" id="e-([^"]+)">([^<]*)<\/p>/g)].find((m) => m[1] === key)?.[2];
    const ar = await post(
      form({ ...buyer, 'fields.0': '', customer_email: 'not-an-email', quantity: '11' }),
      'ar',
    );
    expect(ar.status).to.equal(422);
    expect(ar.text).to.contain('dir="rtl"');
    // Joi's refusals (e-mail, quantity) come before the custom field rules: one post each.
    expect(errorOf(ar.text, 'customer_email')).to.equal('أدخل بريدًا إلكترونيًا صحيحًا، مثل name@example.com.');
    const field = await post(form({ ...buyer, 'fields.0': '' }), 'ar');
    expect(field.status).to.equal(422);
    expect(errorOf(field.text, 'fields-0')).to.equal('هذا الحقل مطلوب.');
    expect(field.text).to.not.contain('is required');
    const many = await post(form({ ...buyer, quantity: '11' }), 'ar');
    expect(errorOf(many.text, 'quantity')).to.equal('أدخل كمية صحيحة ضمن الحد المسموح للطلب.');
    const method = await post(form({ ...buyer, payment_method: 'bitcoin' }), 'ar');
    expect(errorOf(method.text, 'payment_method')).to.equal('اختر طريقة دفع.');
    const en = await post(form({ ...buyer, 'fields.0': '' }), 'en');
    expect(errorOf(en.text, 'fields-0')).to.equal('Player name is required.');
  });

  it('refuses a coupon as the Embed API does, in the page’s language', async () => {
    const coupon = await post(form({ ...buyer, coupon_code: 'NOPE' }));
    expect(coupon.status).to.equal(400);
    expect(coupon.text)
      .to.contain('role="alert"')
      .and.to.match(/[Cc]oupon/);
    const ar = await post(form({ ...buyer, coupon_code: 'NOPE' }), 'ar');
    expect(ar.status).to.equal(400);
    expect(ar.text).to.contain('role="alert"').and.to.contain('dir="rtl"');
  });

  it('buys with a coupon and an upload through the sandbox, and the page names the order', async () => {
    const res = await post(form({ ...buyer, coupon_code: 'i42ten' }, true), 'ar');
    expect(res.status, res.text).to.equal(303);
    const location = res.headers.get('location')!;
    expect(location).to.match(/\/pay\/payments\/\d+-[0-9a-f]{32}\?lang=ar$/);
    const paymentId = paymentIdOf(new URL(location, suite.server.url).toString().replace(/\?.*$/, ''));

    const sandbox = await browse(suite.server, location);
    expect(sandbox.status).to.equal(200);
    expect(sandbox.text)
      .to.contain('dir="rtl"')
      .and.to.match(/27\.00/);
    const paid = await browse(suite.server, location.replace(/\?.*$/, ''), { outcome: 'paid' });
    expect(paid.status).to.equal(200);

    const checkout = await Checkout.query(suite.deps.knex).findOne({
      store_id: m.id,
      customer_phone: '594200010',
    });
    expect(checkout!.source).to.equal('store_page');
    const order = await orderOf(checkout!.id);
    const page = await waitFor('the paid page', async () => {
      const again = await browse(suite.server, `${location.replace(/\?.*$/, '')}?lang=ar`);
      return again.text.includes(`#${order.number}`) ? again : undefined;
    });
    expect(page.text).to.contain(`data-order-id="${order.id}"`);
    expect(page.text).to.contain('href="/account?lang=ar"');
    expect((await Order.query(suite.deps.knex).findById(order.id))!.total_minor).to.equal(2_700);
    const uploads = await CheckoutUpload.query(suite.deps.knex).where('checkout_id', checkout!.id);
    expect(uploads).to.have.length(1);
    expect(paymentId).to.be.greaterThan(0);
    // The delivery message speaks the page's language: the product's Arabic name, and the key.
    const message = await waitFor('the delivery message', async () => {
      const res = await suite.server.request('/__dev/outbox?to=966594200010');
      const bodies = (res.body.messages as { body: string }[]).map((m) => m.body);
      return bodies.find((b) => b.includes(`#${order.number}`) && b.includes('I42-S-'));
    });
    expect(message).to.contain('حزمة أشكال');
  });
});
