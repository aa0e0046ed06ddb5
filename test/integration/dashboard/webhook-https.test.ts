import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { dashboardForm, dashboardLogin } from './support';

/**
 * One rule for webhook addresses, whichever way they come in: in production the dashboard's webhooks page
 * refuses an http:// address exactly as POST /shawarma/webhooks does, and stores nothing.
 */
describe('webhook addresses in production: https only, on the dashboard as on the Merchant API', () => {
  let deps: Deps;
  let server: TestServer;

  before(async () => {
    deps = await isolatedDeps({ NODE_ENV: 'production', RATE_LIMITS: 'off' });
    server = await startServer(deps);
  });
  after(() => server.close());

  it('refuses http:// on both (422, nothing stored) and takes https:// on both', async () => {
    const store = await createStore();
    const owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner');
    const endpoints = () => deps.knex('merchant_webhook_endpoints').where('store_id', store.id);

    for (const lang of ['en', 'ar']) {
      const page = await server.request(
        `/merchant/webhooks?lang=${lang}`,
        dashboardForm(owner, { url: 'http://erp.example.com/hooks', events: 'order.paid' }),
      );
      expect(page.status, page.text).to.equal(422);
      expect(page.text).to.contain(
        lang === 'en' ? 'The webhook address must use https.' : 'يجب أن يبدأ عنوان الـ webhook بـ https.',
      );
    }
    const token = await merchantToken(store);
    const api = await server.request('/shawarma/webhooks', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      json: { url: 'http://erp.example.com/hooks', events: ['order.paid'] },
    });
    expect(api.status).to.equal(422);
    expect(api.body.errors).to.deep.equal({ url: ['The webhook url must use https.'] });
    expect(await endpoints()).to.have.length(0);

    const saved = await server.request(
      '/merchant/webhooks?lang=en',
      dashboardForm(owner, { url: 'https://erp.example.com/hooks', events: 'order.paid' }),
    );
    expect(saved.status, saved.text).to.equal(200);
    const viaApi = await server.request('/shawarma/webhooks', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      json: { url: 'https://erp.example.com/other', events: ['order.paid'] },
    });
    expect(viaApi.status).to.equal(201);
    expect((await endpoints()).map((e: { url: string }) => e.url).sort()).to.deep.equal([
      'https://erp.example.com/hooks',
      'https://erp.example.com/other',
    ]);
  });
});
