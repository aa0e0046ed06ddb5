import { expect } from 'chai';
import type { Store } from '../../../db/models';
import { localInputToUtc, utcToLocalInput } from '../../../shared/i18n/local-time';
import { createProduct, createStore } from '../../helpers/builders';
import { usePaymentsSuite } from '../payments/support';
import { dashboardForm, dashboardLogin, type DashboardLogin } from './support';

/**
 * Dates the dashboard shows and takes are the store's wall time (docs/dashboard.md, "Time zone and
 * digits"): a coupon that ends 1 December 00:00 in Asia/Riyadh is stored as 2026-11-30T21:00Z and read back
 * as 00:00; a timed sale's start and end likewise; another store's zone moves the same instant.
 */
describe('the dashboard in the store’s time zone', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let riyadh: Store;
  let owner: DashboardLogin;

  before(async () => {
    riyadh = await createStore({ name: 'Riyadh Store', time_zone: 'Asia/Riyadh' });
    owner = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, riyadh.id, 'owner', '596200101');
  });

  it('converts a datetime-local value both ways, across a daylight-saving change too', () => {
    expect(localInputToUtc('2026-12-01T00:00', 'Asia/Riyadh')).to.equal('2026-11-30T21:00:00.000Z');
    expect(utcToLocalInput('2026-11-30T21:00:00Z', 'Asia/Riyadh')).to.equal('2026-12-01T00:00');
    // New York: EST in winter (UTC-5), EDT in summer (UTC-4).
    expect(localInputToUtc('2026-01-15T09:30', 'America/New_York')).to.equal('2026-01-15T14:30:00.000Z');
    expect(localInputToUtc('2026-07-15T09:30', 'America/New_York')).to.equal('2026-07-15T13:30:00.000Z');
    expect(utcToLocalInput('2026-07-15T13:30:00Z', 'America/New_York')).to.equal('2026-07-15T09:30');
    expect(localInputToUtc('2026-12-01', 'Asia/Riyadh')).to.equal(null);
    expect(localInputToUtc('2026-13-45T99:00', 'Asia/Riyadh')).to.equal(null);
  });

  it('stores a coupon ending 2026-12-01T00:00 in Asia/Riyadh as 21:00Z the day before, and shows 00:00 back', async () => {
    const code = `TZ${Date.now().toString(36).toUpperCase()}`;
    const created = await suite.server.request('/merchant/coupons', {
      ...dashboardForm(owner, {
        code,
        type: 'percentage',
        amount: '10',
        active: '1',
        expires_at: '2026-12-01T00:00',
      }),
      redirect: 'manual',
    });
    expect(created.status, created.text).to.equal(303);
    const row = await suite.deps.knex('coupons').where({ store_id: riyadh.id, code }).first();
    expect(new Date(row.expires_at).toISOString()).to.equal('2026-11-30T21:00:00.000Z');

    const form = await suite.server.request(`/merchant/coupons/${row.id}?lang=en`, {
      headers: { cookie: owner.cookie },
    });
    expect(form.status).to.equal(200);
    expect(form.text).to.match(/name="expires_at" type="datetime-local"[^>]* value="2026-12-01T00:00"/);
    expect(form.text).to.contain('In the store’s time zone (Asia/Riyadh)');

    const list = await suite.server.request('/merchant/coupons?lang=en', {
      headers: { cookie: owner.cookie },
    });
    expect(list.text).to.contain('1 Dec 2026, 00:00');
    expect(list.text).to.not.contain('30 Nov 2026, 21:00');
    const arabic = await suite.server.request('/merchant/coupons?lang=ar', {
      headers: { cookie: owner.cookie },
    });
    expect(arabic.text).to.match(/1 ديسمبر 2026[^<]*12:00/);

    // Saved again unchanged from its own form: the same instant (no drift by the zone's offset).
    const again = await suite.server.request(`/merchant/coupons/${row.id}`, {
      ...dashboardForm(owner, {
        code,
        type: 'percentage',
        amount: '10',
        active: '1',
        expires_at: '2026-12-01T00:00',
      }),
      redirect: 'manual',
    });
    expect(again.status, again.text).to.equal(303);
    const after = await suite.deps.knex('coupons').where({ id: row.id }).first();
    expect(new Date(after.expires_at).toISOString()).to.equal('2026-11-30T21:00:00.000Z');
  });

  it('reads the same instant in the zone the store picks (Asia/Dubai: 01:00)', async () => {
    const dubai = await createStore({ name: 'Dubai Store', time_zone: 'Asia/Dubai' });
    const login = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, dubai.id, 'owner', '596200102');
    await suite.deps.knex('coupons').insert({
      store_id: dubai.id,
      code: 'DUBAI',
      type: 'percentage',
      amount: 1000,
      active: true,
      expires_at: new Date('2026-11-30T21:00:00Z'),
    });
    const list = await suite.server.request('/merchant/coupons?lang=en', {
      headers: { cookie: login.cookie },
    });
    expect(list.text).to.contain('1 Dec 2026, 01:00');
  });

  it('schedules a timed sale in the store’s time: 00:00 to 06:00 Riyadh is 21:00Z to 03:00Z', async () => {
    const product = await createProduct(riyadh, { name: 'Zone ebook' });
    const res = await suite.server.request('/merchant/growth/sales', {
      ...dashboardForm(owner, {
        name: 'Night sale',
        percent: '10',
        products: String(product.id),
        starts_at: '2026-12-01T00:00',
        ends_at: '2026-12-01T06:00',
      }),
      redirect: 'manual',
    });
    expect(res.status, res.text).to.equal(303);
    const sale = await suite.deps.knex('sales').where({ store_id: riyadh.id, name: 'Night sale' }).first();
    expect(new Date(sale.starts_at).toISOString()).to.equal('2026-11-30T21:00:00.000Z');
    expect(new Date(sale.ends_at).toISOString()).to.equal('2026-12-01T03:00:00.000Z');
    const page = await suite.server.request('/merchant/growth?lang=en', {
      headers: { cookie: owner.cookie },
    });
    expect(page.text).to.contain('1 Dec 2026, 00:00').and.to.contain('1 Dec 2026, 06:00');
  });
});
