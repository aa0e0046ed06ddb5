import { expect } from 'chai';
import { ORDER_STATUS, type PaymentMethodId, type Product, type Store } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { PAYMENT_METHOD_NAMES } from '../../../shared/services/payment-methods';
import { DASHBOARD_STRINGS } from '../../../api/dashboard/i18n';
import { ORDER_LABELS } from '../../../api/dashboard/pages/orders/labels';
import { LAUNCH_TEXT } from '../../../api/dashboard/pages/launch/strings';
import { createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { seedOrder } from '../merchant/support';
import { dashboardForm, dashboardLogin, type DashboardLogin } from './support';

const METHODS = Object.keys(PAYMENT_METHOD_NAMES) as PaymentMethodId[];
const PAYMENT_STATUSES = ['pending', 'initiated', 'paid', 'failed', 'expired', 'refunded'];
const PROVIDERS = Object.keys(ORDER_LABELS.en.provider);
const SOURCES = Object.keys(ORDER_LABELS.en.source);

/** What a reader sees of a page: no markup, attributes, styles or scripts. */
const visible = (html: string) =>
  html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');

/**
 * The order page's words (docs/dashboard.md, "Pages"): its discount line, every order status, payment
 * method, payment status, provider and history source in the page's language (an Arabic page shows none
 * of the English words); and the refund form answers with a 303 to the order page naming the refund.
 */
describe('the order page’s labels in both languages, and the refund form’s redirect', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let owner: DashboardLogin;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore({ name: 'Labels Store' });
    product = await createProduct(store, { name: 'Labels ebook', price_minor: 4_500 });
    owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner', '596200301');
  });
  after(() => server.close());

  /** An order of `status` whose checkout tried every method, each payment in one of the statuses. */
  async function orderWithEverything(status: number): Promise<number> {
    const [checkout] = await deps
      .knex('checkouts')
      .insert({
        store_id: store.id,
        token_hash: sha256(randomToken()),
        customer_first_name: 'Huda',
        customer_last_name: 'Saleh',
        customer_email: 'huda@example.com',
        customer_country_code: '966',
        customer_phone: '596200302',
        product_id: product.id,
        quantity: 1,
        unit_price_minor: 4_500,
        subtotal_minor: 4_500,
        discount_minor: 500,
        total_minor: 4_000,
        currency: 'SAR',
        status: 'payment_initiated',
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .returning('id');
    const checkoutId = Number((checkout as { id: number }).id);
    const rows = Array.from({
      length: Math.max(METHODS.length, PAYMENT_STATUSES.length, PROVIDERS.length),
    }).map((_, i) => ({
      checkout_id: checkoutId,
      store_id: store.id,
      method: METHODS[i % METHODS.length],
      provider: PROVIDERS[i % PROVIDERS.length],
      status: PAYMENT_STATUSES[i % PAYMENT_STATUSES.length],
      amount_minor: 4_000,
      currency: 'SAR',
    }));
    const inserted = await deps.knex('payments').insert(rows).returning('id');
    const paid = inserted[PAYMENT_STATUSES.indexOf('paid')] as { id: number };
    const order = await seedOrder(deps.knex, store, product, {
      status: status as never,
      totalMinor: 4_000,
      paymentId: paid.id,
      paymentMethod: rows[PAYMENT_STATUSES.indexOf('paid')]!.method,
    });
    await deps
      .knex('orders')
      .where({ id: order.id })
      .update({ checkout_id: checkoutId, subtotal_minor: 4_500, discount_minor: 500, total_minor: 4_000 });
    await deps.knex('order_status_events').insert(
      SOURCES.map((source, i) => ({
        store_id: store.id,
        order_id: order.id,
        from_status: 1 + (i % 5),
        to_status: 1 + ((i + 1) % 5),
        source,
      })),
    );
    return order.id;
  }

  it('has every status, method, payment status, provider and source in Arabic, none in English', async () => {
    const en = DASHBOARD_STRINGS.en;
    const ar = DASHBOARD_STRINGS.ar;
    // Words an Arabic page must not show: each English label that differs from its Arabic one.
    const english = [
      ...[1, 2, 3, 4, 5, 6].map((n) => en.statusName[n]!),
      ...METHODS.filter((m) => PAYMENT_METHOD_NAMES[m].name_en !== PAYMENT_METHOD_NAMES[m].name_ar).map(
        (m) => PAYMENT_METHOD_NAMES[m].name_en,
      ),
      ...PAYMENT_STATUSES.map((s) => LAUNCH_TEXT.en.paymentStatus[s]!),
      ...Object.values(ORDER_LABELS.en.provider),
      ...Object.values(ORDER_LABELS.en.source),
      ORDER_LABELS.en.discount,
      ORDER_LABELS.en.subtotal,
      // The raw values the database holds.
      ...PAYMENT_STATUSES,
      ...PROVIDERS,
      ...SOURCES,
      ...METHODS.filter((m) => !['stcpay', 'applepay'].includes(m)),
    ];
    for (const status of [1, 2, 3, 4, 5, 6]) {
      const id = await orderWithEverything(status);
      const arabic = await server.request(`/merchant/orders/${id}?lang=ar`, {
        headers: { cookie: owner.cookie },
      });
      expect(arabic.status, arabic.text).to.equal(200);
      const main = visible(arabic.text.slice(arabic.text.indexOf('<main>')));
      // Only the person's own entries (the item's name, the e-mail) are left in Latin letters.
      const latin = main
        .replace(/Labels ebook|huda@example\.com|Huda|Saleh|Sara|Ali|sara@example\.com/g, '')
        .replace(/STC Pay|Apple Pay|SAR/g, '');
      for (const word of english) {
        expect(latin.toLowerCase(), `${status}: "${word}"`).to.not.match(
          new RegExp(`(^|[^a-z])${word.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^a-z]|$)`),
        );
      }
      expect(main).to.contain(ar.statusName[status]!);
      for (const m of METHODS) expect(main).to.contain(PAYMENT_METHOD_NAMES[m].name_ar);
      for (const s of PAYMENT_STATUSES) expect(main).to.contain(LAUNCH_TEXT.ar.paymentStatus[s]!);
      for (const p of PROVIDERS) expect(main).to.contain(ORDER_LABELS.ar.provider[p]!);
      for (const s of new Set(Object.values(ORDER_LABELS.ar.source))) expect(main).to.contain(s);
      expect(main).to.contain(ORDER_LABELS.ar.discount).and.to.contain(ORDER_LABELS.ar.subtotal);

      const english_ = visible(
        (await server.request(`/merchant/orders/${id}?lang=en`, { headers: { cookie: owner.cookie } })).text,
      );
      expect(english_).to.contain(en.statusName[status]!);
      for (const m of METHODS) expect(english_).to.contain(PAYMENT_METHOD_NAMES[m].name_en);
      for (const p of PROVIDERS) expect(english_).to.contain(ORDER_LABELS.en.provider[p]!);
      expect(english_)
        .to.match(/Discount −SAR 5\.00/)
        .and.to.match(/Subtotal SAR 45\.00/);
      expect(english_).to.not.contain(ar.statusName[status]!).and.not.contain(ORDER_LABELS.ar.discount);
    }
  });

  it('answers a confirmed refund with 303 to the order page, whose notice names the refund', async () => {
    const id = await orderWithEverything(ORDER_STATUS.IN_PROGRESS);
    const asked = await server.request(
      `/merchant/orders/${id}/refund?lang=en`,
      dashboardForm(owner, { amount: '10.00', reason: 'one key did not work' }),
    );
    expect(asked.status).to.equal(200);
    expect(asked.headers.get('content-type')).to.match(/^text\/html/);
    const done = await server.request(`/merchant/orders/${id}/refund?lang=en`, {
      ...dashboardForm(owner, { amount: '10.00', reason: 'one key did not work', confirm: '1' }),
      redirect: 'manual',
    });
    expect(done.status, done.text).to.equal(303);
    const refund = await deps.knex('refunds').where({ order_id: id }).orderBy('id', 'desc').first('id');
    expect(done.headers.get('location')).to.equal(`/merchant/orders/${id}?refunded=${refund.id}`);
    const page = await server.request(done.headers.get('location')!, { headers: { cookie: owner.cookie } });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.text).to.match(/role="status"[^>]*>Refund of SAR\s10\.00 recorded\./);
    const arabic = await server.request(`/merchant/orders/${id}?refunded=${refund.id}&lang=ar`, {
      headers: { cookie: owner.cookie },
    });
    expect(arabic.text).to.contain('سُجّل استرجاع');
    // Another order's refund id names nothing on this page.
    const other = await orderWithEverything(ORDER_STATUS.IN_PROGRESS);
    const elsewhere = await server.request(`/merchant/orders/${other}?refunded=${refund.id}&lang=en`, {
      headers: { cookie: owner.cookie },
    });
    expect(elsewhere.text).to.not.contain('Refund of SAR');
  });
});
