import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../shared/config';
import { loadFixture } from '../../../shared/services/seed';
import { paymentsSuite, type PaymentsSuite } from '../payments/support';

/**
 * STORE_DOMAIN_SUFFIX (docs/store-pages.md, "Store domains"): every store answers at `{slug}.<suffix>`;
 * the value is checked at start.
 */
describe('store pages: STORE_DOMAIN_SUFFIX', function () {
  this.timeout(30_000);
  let suite: PaymentsSuite;

  before(async () => {
    suite = await paymentsSuite({ STORE_DOMAIN_SUFFIX: 'shops.i42.test' }, { workers: false });
    await loadFixture(suite.deps, {
      stores: [{ ref: 'i42-suffix', name: 'Suffix i42', currency: 'SAR' }],
    });
  });
  after(async () => {
    await suite?.close();
  });

  it('serves each store’s page at {slug}.<suffix>, and nothing at other names under it', async () => {
    const home = await suite.server.request('/?lang=en', { headers: { Host: 'i42-suffix.shops.i42.test' } });
    expect(home.status).to.equal(200);
    expect(home.text).to.contain('Suffix i42');
    for (const host of ['nobody.shops.i42.test', 'a.i42-suffix.shops.i42.test', 'shops.i42.test']) {
      expect((await suite.server.request('/', { headers: { Host: host } })).status, host).to.equal(404);
    }
  });

  it('refuses a value that is not a domain name at start, naming the variable', () => {
    for (const value of ['not a domain', 'localhost', 'http://x.test']) {
      let err: unknown;
      try {
        loadConfig({ STORE_DOMAIN_SUFFIX: value });
      } catch (e) {
        err = e;
      }
      expect(err, value).to.be.instanceOf(ConfigError);
      expect((err as Error).message).to.contain('STORE_DOMAIN_SUFFIX');
    }
    expect(loadConfig({ STORE_DOMAIN_SUFFIX: 'Shops.Example.com' }).storeDomainSuffix).to.equal(
      'shops.example.com',
    );
  });
});
