import { expect } from 'chai';
import type { Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { dashboardForm, dashboardLogin, type DashboardLogin } from '../dashboard/support';
import { DASHBOARD_STRINGS } from '../../../api/dashboard/i18n';

const ar = DASHBOARD_STRINGS.ar;

/**
 * The launch checklist (docs/dashboard.md, "Launch checklist"): each step ticks itself from the store's
 * data; a store without a payment method is flagged on every page; its products say "not purchasable yet"
 * in the Embed API's answer until a method is on.
 */

const stepsOf = (html: string): Record<string, string> =>
  Object.fromEntries(
    [...html.matchAll(/data-step="(\w+)" data-done="(true|false)"/g)].map((m) => [m[1], m[2]]),
  );

describe('Launch checklist, the no-payment-method flag and “not purchasable yet”', function () {
  this.timeout(30_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let owner: DashboardLogin;
  let token: string;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore({ name: 'Launch Store' });
    owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner');
    token = await merchantToken(store);
  });
  after(() => server.close());

  const get = (path: string) => server.request(path, { headers: { cookie: owner.cookie } });
  const product = (id: number) =>
    server.request(`/api/embed/product/${id}`, {
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
  const merchant = (method: string, path: string, json: unknown) =>
    server.request(path, { method, json, headers: { Authorization: `Bearer ${token}` } });

  it('walks a fresh store from nothing to a sale, each step ticked from data, and then hides the list', async () => {
    const home = await get('/merchant?lang=en');
    expect(home.status).to.equal(200);
    expect(home.text).to.contain('Get your store ready').and.to.contain('0/5');
    expect(stepsOf(home.text)).to.deep.equal({
      payment: 'false',
      product: 'false',
      keys: 'false',
      share: 'false',
      test_purchase: 'false',
    });
    // Each step links to the place that does it.
    expect(home.text).to.contain('href="/merchant/payments">Turn on a payment method</a>');
    expect(home.text).to.contain('href="/merchant/products/new">Add a product</a>');
    // The sandbox is on outside production: the payment step says so.
    expect(home.text).to.contain('sandbox card');

    // Flagged on every page, in both languages.
    for (const path of [
      '/merchant?lang=en',
      '/merchant/orders',
      '/merchant/products',
      '/merchant/customers',
    ]) {
      const page = await get(path);
      expect(page.text, path).to.contain('data-no-payment-method');
    }
    expect((await get('/merchant/orders?lang=ar')).text).to.contain('لا توجد طريقة دفع مفعّلة');

    // A code product without keys, in a store without a payment method: not purchasable, said up front.
    const created = await merchant('POST', '/shawarma/products', {
      name: 'Game code',
      slug: 'game-code',
      type: 'code',
      price: '25.00',
      active: true,
    });
    expect(created.status, created.text).to.equal(201);
    const id = (created.body.data as { id: number }).id;
    const before = await product(id);
    expect(before.status, before.text).to.equal(200);
    expect(before.body.data).to.deep.include({
      purchasable: false,
      not_purchasable_reason: 'no_payment_method',
    });
    expect(stepsOf((await get('/merchant')).text)).to.include({ product: 'true', keys: 'false' });
    expect((await get('/merchant')).text).to.contain(`href="/merchant/products/${id}/keys"`);
    // A code product's stock is its keys left, never "Unlimited".
    const noKeyList = await get('/merchant/products?lang=en');
    expect(noKeyList.text).to.contain('data-keys-left="0">0 keys left').and.to.not.contain('Unlimited');

    // The sandbox card on, through the Merchant API's store settings: the flag goes, the answer follows.
    const on = await merchant('PATCH', '/shawarma/store', {
      payment_methods: { card: { provider: 'sandbox' } },
    });
    expect(on.status, on.text).to.equal(200);
    const noKeys = await product(id);
    expect(noKeys.body.data).to.deep.include({ purchasable: false, not_purchasable_reason: 'out_of_stock' });
    for (const path of ['/merchant', '/merchant/orders']) {
      expect((await get(path)).text, path).to.not.contain('data-no-payment-method');
    }

    const keys = await merchant('POST', `/shawarma/products/${id}/codes`, {
      codes: ['LAUNCH-1', 'LAUNCH-2'],
    });
    expect(keys.status, keys.text).to.be.oneOf([200, 201]);
    expect((await get('/merchant/products?lang=en')).text).to.contain('data-keys-left="2">2 keys left');
    expect((await get('/merchant/products?lang=ar')).text).to.contain('المتبقي 2 من الأكواد');
    const ready = await product(id);
    expect(ready.body.data).to.deep.include({ purchasable: true, not_purchasable_reason: null });
    expect(stepsOf((await get('/merchant')).text)).to.deep.equal({
      payment: 'true',
      product: 'true',
      keys: 'true',
      share: 'false',
      test_purchase: 'false',
    });

    // The product page has the widget snippet with the real id and key; Copy ticks "share".
    const page = await get(`/merchant/products/${id}?lang=en`);
    expect(page.text).to.contain(
      `data-matjar-product=&quot;${id}&quot; data-matjar-key=&quot;${store.embed_key}&quot;`,
    );
    expect(page.text).to.contain('Copy snippet').and.to.contain('/merchant/assets/launch.js');
    const script = await server.request('/merchant/assets/launch.js');
    expect(script.status).to.equal(200);
    expect(script.text).to.contain('navigator.clipboard');
    // Without the form token: refused, nothing noted.
    const forged = await server.request(`/merchant/products/${id}/snippet-copied`, {
      method: 'POST',
      headers: { cookie: owner.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(forged.status).to.equal(403);
    expect(stepsOf((await get('/merchant')).text).share).to.equal('false');
    const copied = await server.request(`/merchant/products/${id}/snippet-copied`, {
      ...dashboardForm(owner, {}),
      redirect: 'manual',
    });
    expect(copied.status).to.equal(303);
    expect(copied.headers.get('location')).to.equal(`/merchant/products/${id}#share`);
    expect(stepsOf((await get('/merchant')).text).share).to.equal('true');

    // A paid order ticks the test purchase, and the list is gone.
    const [order] = await deps
      .knex('orders')
      .insert({
        store_id: store.id,
        status: 4,
        customer_first_name: 'Huda',
        customer_last_name: 'Launch',
        customer_email: 'huda@i40.test',
        customer_country_code: '966',
        customer_phone: '594000301',
        subtotal_minor: 2500,
        total_minor: 2500,
        currency: 'SAR',
      })
      .returning(['id', 'number']);
    expect((order as { number: number }).number).to.equal(1);
    const done = await get('/merchant');
    expect(done.text).to.not.contain('data-launch-checklist');
  });

  it('the history’s arrow follows the page’s direction; the refund and status addresses opened again go to the order page', async () => {
    const [row] = await deps
      .knex('orders')
      .insert({
        store_id: store.id,
        status: 3,
        customer_first_name: 'Reload',
        customer_last_name: 'Test',
        customer_email: 'reload@i40.test',
        customer_country_code: '966',
        customer_phone: '594000311',
        subtotal_minor: 100,
        total_minor: 100,
        currency: 'SAR',
      })
      .returning('id');
    const id = (row as { id: number }).id;
    // The history's arrow points the way the page reads: from the old status to the new one.
    const moved = await merchant('PUT', `/shawarma/orders/${id}`, { status: 4 });
    expect(moved.status, moved.text).to.equal(200);
    const en = await get(`/merchant/orders/${id}?lang=en`);
    expect(en.text).to.contain('In progress → Completed');
    const arabic = await get(`/merchant/orders/${id}?lang=ar`);
    expect(arabic.text).to.contain(`${ar.statusName[3]} ← ${ar.statusName[4]}`);
    expect(arabic.text).to.not.contain(`${ar.statusName[3]} → `);
    for (const suffix of ['refund', 'status']) {
      const res = await server.request(`/merchant/orders/${id}/${suffix}`, {
        headers: { cookie: owner.cookie },
        redirect: 'manual',
      });
      expect(res.status, suffix).to.equal(303);
      expect(res.headers.get('location')).to.equal(`/merchant/orders/${id}`);
      const out = await server.request(`/merchant/orders/${id}/${suffix}`, { redirect: 'manual' });
      expect(out.status).to.equal(302);
      expect(out.headers.get('location')).to.match(/^\/merchant\/signin/);
    }
  });

  it('a free product needs no payment method; another store’s product page and Copy are a 404', async () => {
    const other = await createStore();
    const free = await createProduct(store, { price_minor: 0 });
    const fresh = await createStore();
    const freeThere = await createProduct(fresh, { price_minor: 0 });
    const paidThere = await createProduct(fresh, { price_minor: 100 });
    const ask = (s: Store, id: number) =>
      server.request(`/api/embed/product/${id}`, {
        headers: { 'X-Embed-Key': s.embed_key, 'X-Forwarded-For': randomIp() },
      });
    expect((await ask(store, free.id)).body.data).to.deep.include({ purchasable: true });
    expect((await ask(fresh, freeThere.id)).body.data).to.deep.include({ purchasable: true });
    expect((await ask(fresh, paidThere.id)).body.data).to.deep.include({
      purchasable: false,
      not_purchasable_reason: 'no_payment_method',
    });
    const theirs = await createProduct(other);
    const res = await server.request(
      `/merchant/products/${theirs.id}/snippet-copied`,
      dashboardForm(owner, {}),
    );
    expect(res.status).to.equal(404);
  });
});
