import { expect } from 'chai';
import type { Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createSession } from '../../../shared/services/staff/sessions';
import { createProduct, createStore } from '../../helpers/builders';
import { sharedDeps, truncateAll } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

/** `app;dur=12.3` -> 12.3; anything else -> null. */
const appDuration = (header: string | null): number | null => {
  const match = /^app;dur=(\d+\.\d)$/.exec(header ?? '');
  return match ? Number(match[1]) : null;
};

/**
 * Every dashboard answer says how long the server took to make it (`Server-Timing: app;dur=<ms>`, what
 * browsers' devtools show and the bench measures, docs/performance.md): signed-in pages, and the redirect
 * of someone signed out. Only the header's shape is checked, never a duration.
 */
describe('merchant dashboard Server-Timing', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let cookie: string;

  before(async () => {
    deps = await sharedDeps();
    server = await startServer(deps);
  });

  after(async () => {
    await server.close();
  });

  beforeEach(async () => {
    await truncateAll(deps);
    store = await createStore();
    const [user] = await deps
      .knex('merchant_users')
      .insert({ name: 'Owner', country_code: '966', phone: '500000902', e164: '966500000902' })
      .returning('id');
    const userId = (user as { id: number }).id;
    await deps.knex('store_members').insert({ store_id: store.id, merchant_user_id: userId, role: 'owner' });
    cookie = `matjar_merchant=${await createSession(deps.knex, userId, store.id, 'test')}`;
  });

  it('a signed-in page carries Server-Timing app;dur=<ms with one decimal>', async () => {
    const product = await createProduct(store);
    for (const page of ['/merchant', '/merchant/orders', `/merchant/products/${product.id}`]) {
      const res = await server.request(`${page}?lang=en`, { headers: { cookie } });
      expect(res.status, page).to.equal(200);
      expect(res.text, page).to.include('</html>');
      const header = res.headers.get('server-timing');
      expect(appDuration(header), `${page}: ${header}`).to.be.a('number').and.not.NaN;
    }
  });

  it('a signed-out request is redirected to sign in, with its Server-Timing too', async () => {
    const res = await server.request('/merchant/orders', { redirect: 'manual' });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('/merchant/signin?next=%2Fmerchant%2Forders');
    expect(appDuration(res.headers.get('server-timing'))).to.be.a('number').and.not.NaN;
  });
});
