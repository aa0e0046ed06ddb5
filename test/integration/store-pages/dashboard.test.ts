import { expect } from 'chai';
import { loadFixture, type StoreManifest } from '../../../shared/services/seed';
import { dashboardForm, dashboardLogin, type DashboardLogin } from '../dashboard/support';
import { usePaymentsSuite } from '../payments/support';

/**
 * The dashboard's store page settings (docs/store-pages.md): the address, description, colour and the
 * policies page, through the Merchant API's store writer; refused values are the form again.
 */
describe('store pages: the dashboard’s store page settings', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite({ workers: false });
  let m: StoreManifest;
  let owner: DashboardLogin;

  before(async () => {
    const manifest = await loadFixture(suite.deps, {
      stores: [
        { ref: 'i42-dash', name: 'Dash i42', currency: 'SAR' },
        { ref: 'i42-dash-other', name: 'Other i42', currency: 'SAR' },
      ],
    });
    m = manifest.stores['i42-dash'];
    owner = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, m.id, 'owner');
  });

  const post = (fields: Record<string, string>) =>
    suite.server.request('/merchant/store-page', { ...dashboardForm(owner, fields), redirect: 'manual' });

  it('shows the store page address and saves the page’s settings, which the store page shows', async () => {
    const page = await suite.server.request('/merchant/store-page?lang=en', {
      headers: { cookie: owner.cookie },
    });
    expect(page.status).to.equal(200);
    expect(page.text).to.contain(`${suite.deps.config.publicBaseUrl}/s/i42-dash`);
    const saved = await post({
      slug: 'i42-dash-new',
      description: 'Keys & cards',
      logo_url: '',
      accent_color: '#123456',
      policies: 'Refunds in 3 days.',
    });
    expect(saved.status, saved.text).to.equal(303);
    expect(saved.headers.get('location')).to.equal('/merchant/store-page?saved=1');
    const store = await suite.server.request('/s/i42-dash-new?lang=en');
    expect(store.text).to.contain('Keys &amp; cards').and.to.contain('--accent:#123456');
    const policies = await suite.server.request('/s/i42-dash-new/policies?lang=en');
    expect(policies.text).to.contain('Refunds in 3 days.');
  });

  it('gives the form again naming a bad or taken address, and changes nothing', async () => {
    for (const slug of ['Not OK', 'i42-dash-other']) {
      const res = await post({ slug, description: '', logo_url: '', accent_color: '#123456', policies: '' });
      expect(res.status, slug).to.equal(422);
      expect(res.text).to.contain('id="slug-error"');
    }
    const row = await suite.deps.knex('stores').where('id', m.id).first('slug');
    expect(row.slug).to.equal('i42-dash-new');
  });
});
