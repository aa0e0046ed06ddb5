import { expect } from 'chai';
import type { Store } from '../../../db/models';
import { createStore } from '../../helpers/builders';
import { dashboardForm, dashboardLogin, type DashboardLogin } from '../dashboard/support';
import { usePaymentsSuite } from '../payments/support';

/**
 * The preferences page (docs/dashboard.md, "Preferences"): the new-order notice switches and the store's
 * time zone, written with their audit row; an unknown zone refused by name; support staff turned away.
 */
describe('the dashboard’s preferences page', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let owner: DashboardLogin;

  before(async () => {
    store = await createStore({ name: 'Prefs Store' });
    owner = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, store.id, 'owner');
  });

  const row = () =>
    suite.deps
      .knex('stores')
      .where({ id: store.id })
      .first('time_zone', 'notify_order_message', 'notify_order_email');

  it('shows the defaults: both notices on, Asia/Riyadh, in Arabic with labelled fields', async () => {
    const page = await suite.server.request('/merchant/preferences?lang=ar', {
      headers: { cookie: owner.cookie },
    });
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.contain('تنبيهات الطلبات الجديدة');
    expect(page.text).to.match(/name="notify_order_message" value="1" checked/);
    expect(page.text).to.match(/name="notify_order_email" value="1" checked/);
    expect(page.text).to.contain('<label for="time-zone">');
    expect(page.text).to.contain('value="Asia/Riyadh"');
  });

  it('turns the message notice off and sets Asia/Dubai, with an audit row; an unchecked box is off', async () => {
    const saved = await suite.server.request('/merchant/preferences', {
      ...dashboardForm(owner, { notify_order_email: '1', time_zone: 'Asia/Dubai' }),
      redirect: 'manual',
    });
    expect(saved.status, saved.text).to.equal(303);
    expect(saved.headers.get('location')).to.equal('/merchant/preferences?saved=1');
    expect(await row()).to.deep.equal({
      time_zone: 'Asia/Dubai',
      notify_order_message: false,
      notify_order_email: true,
    });
    const audit = await suite.deps
      .knex('merchant_audit_events')
      .where({ store_id: store.id, action: 'store.updated' })
      .orderBy('id', 'desc')
      .first();
    expect(JSON.stringify(audit.changes)).to.contain('Asia/Dubai').and.to.contain('notify_order_message');
  });

  it('refuses an unknown time zone by name (422), changing nothing', async () => {
    for (const zone of ['Mars/Olympus', 'not a zone', '']) {
      const res = await suite.server.request(
        '/merchant/preferences?lang=en',
        dashboardForm(owner, { notify_order_message: '1', time_zone: zone }),
      );
      expect(res.status, res.text).to.equal(422);
      expect(res.text).to.contain('A time zone such as Asia/Riyadh.').and.to.contain('aria-invalid="true"');
    }
    expect((await row()).time_zone).to.equal('Asia/Dubai');
    expect((await row()).notify_order_message).to.equal(false);
  });

  it('is the owners’ and managers’ only: support staff get 403', async () => {
    const support = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, store.id, 'support');
    const page = await suite.server.request('/merchant/preferences', { headers: { cookie: support.cookie } });
    expect(page.status).to.equal(403);
    const post = await suite.server.request(
      '/merchant/preferences',
      dashboardForm(support, { notify_order_message: '1', time_zone: 'UTC' }),
    );
    expect(post.status).to.equal(403);
    expect((await row()).time_zone).to.equal('Asia/Dubai');
  });
});
