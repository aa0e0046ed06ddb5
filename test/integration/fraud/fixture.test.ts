import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { FixtureError, loadFixture } from '../../../shared/services/seed';
import { storeSettings } from '../../../shared/services/stores/settings';
import { isolatedDeps } from '../../helpers/deps';

/** The fixture's store `settings` carries the fraud controls' keys (docs/fraud.md), like PATCH /shawarma/store. */
describe('fraud controls: fixture settings', function () {
  this.timeout(30_000);
  let deps: Deps;
  before(async () => {
    deps = await isolatedDeps();
  });

  const fixture = (settings: unknown) => {
    const ref = `i43-${crypto.randomBytes(4).toString('hex')}`;
    return { ref, fixture: { stores: [{ ref, name: 'Fixture i43', currency: 'SAR', settings }] } };
  };

  it('loads the settings, shows them on the store, and loading twice changes nothing', async () => {
    const settings = {
      blocked_emails: ['@bad.i43.test'],
      blocked_ips: ['203.0.113.0/24', '2001:db8::1'],
      max_orders_per_buyer_per_day: 3,
      review_above: '500.00',
    };
    const { ref, fixture: f } = fixture(settings);
    const manifest = await loadFixture(deps, f);
    const storeId = manifest.stores[ref]!.id;
    const again = await loadFixture(deps, f);
    expect(again.stores[ref]!.id).to.equal(storeId);
    const view = await storeSettings(deps, storeId);
    expect(view.settings).to.deep.include({
      blocked_emails: ['@bad.i43.test'],
      blocked_ips: ['203.0.113.0/24', '2001:db8::1'],
      max_orders_per_buyer_per_day: 3,
      max_units_per_product_per_day: null,
      new_buyer_daily_limit: null,
      review_above: '500.00',
      review_buyers_per_ip_per_hour: null,
    });
  });

  it('refuses a bad entry with the path of the field, writing nothing', async () => {
    const { fixture: f } = fixture({ blocked_ips: ['999.1.1.1'] });
    let caught: unknown;
    try {
      await loadFixture(deps, f);
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(FixtureError);
    expect((caught as FixtureError).path).to.equal('stores[0].settings.blocked_ips[0]');
  });
});
