import { expect } from 'chai';
import type { Store } from '../../../db/models';
import { createProduct, createStore } from '../../helpers/builders';
import {
  embedPost,
  guestInitiate,
  hostedMethod,
  paymentIdOf,
  sessionOf,
  usePaymentsSuite,
} from '../payments/support';
import { dashboardForm, dashboardLogin, type DashboardLogin } from './support';

const ARABIC_INDIC = /[\u0660-\u0669]/g;

/**
 * The store's digits (docs/dashboard.md, "Time zone and digits"): Arabic pages write 0-9 unless the
 * merchant picks Arabic-Indic on the preferences page; then the dashboard and the store's pages write
 * ٠-٩ in Arabic (amounts, dates, counts), and English pages keep 0-9.
 */
describe('the store’s digits on Arabic pages', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let owner: DashboardLogin;
  let slug: string;

  before(async () => {
    slug = `digits-${Date.now().toString(36)}`;
    store = await createStore({ name: 'Digits Store', slug });
    owner = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, store.id, 'owner', '596200201');
    await createProduct(store, { name: 'Digits ebook', slug: 'digits-ebook', price_minor: 12_345 });
    await suite.deps.knex('coupons').insert({
      store_id: store.id,
      code: 'DIGITS',
      type: 'fixed',
      amount: 2_500,
      active: true,
      uses_count: 37,
      expires_at: new Date('2026-12-24T09:00:00Z'),
    });
  });

  const dashboard = (path: string) => suite.server.request(path, { headers: { cookie: owner.cookie } });
  /** The page's text with markup, attributes, styles and scripts left out: what a reader sees. */
  const visible = (html: string) =>
    html
      .replace(/<style[\s\S]*?<\/style>/g, '')
      .replace(/<script[\s\S]*?<\/script>/g, '')
      .replace(/<[^>]+>/g, ' ');

  it('writes Western digits on Arabic pages by default: no ٠-٩ on the dashboard or the store page', async () => {
    const prefs = await dashboard('/merchant/preferences?lang=ar');
    expect(prefs.text).to.match(/name="digits" value="western" checked/);
    for (const path of ['/merchant/coupons?lang=ar', '/merchant?lang=ar', '/merchant/preferences?lang=ar']) {
      const page = await dashboard(path);
      expect(page.status, path).to.equal(200);
      // The Arabic-Indic sample of the digits choice is the only place they may appear.
      const text = visible(page.text).replace(/هندية: [٠-٩ ]+/, '');
      expect(text.match(ARABIC_INDIC), path).to.equal(null);
    }
    const coupons = visible((await dashboard('/merchant/coupons?lang=ar')).text);
    expect(coupons)
      .to.contain('37')
      .and.to.match(/24 ديسمبر 2026/);
    const storePage = await suite.server.request(`/s/${slug}?lang=ar`);
    expect(storePage.status).to.equal(200);
    expect(visible(storePage.text)).to.contain('123.45');
    expect(visible(storePage.text).match(ARABIC_INDIC)).to.equal(null);
  });

  it('writes Arabic-Indic digits once the merchant picks them, audited; English pages keep 0-9', async () => {
    const saved = await suite.server.request('/merchant/preferences', {
      ...dashboardForm(owner, {
        notify_order_message: '1',
        notify_order_email: '1',
        time_zone: 'Asia/Riyadh',
        digits: 'arabic_indic',
      }),
      redirect: 'manual',
    });
    expect(saved.status, saved.text).to.equal(303);
    expect((await suite.deps.knex('stores').where({ id: store.id }).first('digits')).digits).to.equal(
      'arabic_indic',
    );
    const audit = await suite.deps
      .knex('merchant_audit_events')
      .where({ store_id: store.id, action: 'store.updated' })
      .orderBy('id', 'desc')
      .first();
    expect(JSON.stringify(audit.changes)).to.contain('arabic_indic');

    const coupons = visible((await dashboard('/merchant/coupons?lang=ar')).text);
    expect(coupons).to.contain('٣٧'); // uses
    expect(coupons).to.match(/٢٤ ديسمبر ٢٠٢٦/); // the expiry, in the store's time zone
    expect(coupons).to.not.contain('37');
    const english = visible((await dashboard('/merchant/coupons?lang=en')).text);
    expect(english).to.contain('37').and.to.contain('24 Dec 2026, 12:00');
    expect(english.match(ARABIC_INDIC)).to.equal(null);

    const storePage = visible((await suite.server.request(`/s/${slug}?lang=ar`)).text);
    expect(storePage).to.contain('١٢٣٫٤٥');
    expect(storePage).to.not.contain('123.45');
    const productPage = visible((await suite.server.request(`/s/${slug}/p/digits-ebook?lang=ar`)).text);
    expect(productPage).to.contain('١٢٣٫٤٥');
    const englishStore = visible((await suite.server.request(`/s/${slug}?lang=en`)).text);
    expect(englishStore).to.contain('123.45');
  });

  it('refuses a digits value it does not know (422 or 400), changing nothing', async () => {
    const res = await suite.server.request('/merchant/preferences', {
      ...dashboardForm(owner, { time_zone: 'Asia/Riyadh', digits: 'roman' }),
      redirect: 'manual',
    });
    expect([400, 422]).to.include(res.status);
    expect((await suite.deps.knex('stores').where({ id: store.id }).first('digits')).digits).to.equal(
      'arabic_indic',
    );
  });

  it('writes the hosted payment page’s amount with the store’s digits in Arabic, and 0-9 in English', async () => {
    const payStore = await createStore({ name: 'Digits Pay Store', slug: `${slug}-pay` });
    await hostedMethod(suite.deps, payStore, 'card', 'sandbox');
    const product = await createProduct(payStore, { name: 'Digits key', price_minor: 12_345 });
    const payPage = async (): Promise<string> => {
      const opened = await embedPost(suite.server, payStore, '/api/embed/guest/checkout', {
        product_id: product.id,
        quantity: 1,
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'digits@example.com',
        customer_phone: `5962${String(Date.now()).slice(-5)}`,
        customer_country_code: '966',
      });
      expect(opened.status, opened.text).to.equal(200);
      const initiated = await guestInitiate(
        suite.server,
        payStore,
        (opened.body.data as { checkout_url: string }).checkout_url,
        'card',
      );
      expect(initiated.status, initiated.text).to.equal(200);
      const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
      await sessionOf(paymentIdOf(redirectUrl), 30_000);
      return new URL(redirectUrl).pathname;
    };
    const western = await payPage();
    const ar = await suite.server.request(`${western}?lang=ar`);
    expect(ar.status).to.equal(200);
    expect(visible(ar.text)).to.contain('123.45').and.not.match(ARABIC_INDIC);

    await suite.deps.knex('stores').where({ id: payStore.id }).update({ digits: 'arabic_indic' });
    const indic = await payPage();
    expect(visible((await suite.server.request(`${indic}?lang=ar`)).text)).to.contain('١٢٣٫٤٥');
    const en = visible((await suite.server.request(`${indic}?lang=en`)).text);
    expect(en).to.contain('123.45').and.not.match(ARABIC_INDIC);
  });
});
