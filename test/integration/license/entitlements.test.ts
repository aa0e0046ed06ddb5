import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { insertLicense, licensedProduct, verify } from './support';

describe('License entitlements: plan features in /verify and certificates, edited by the merchant', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let token: string;
  let product: Product;
  let planId: number;

  const put = (path: string, json: unknown, t = token): ReturnType<TestServer['request']> =>
    server.request(`/shawarma${path}`, { method: 'PUT', json, headers: { Authorization: `Bearer ${t}` } });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    token = await merchantToken(store);
    product = await licensedProduct(store, deps.cipher, { name: 'Editor' });
    const [plan] = await deps
      .knex('product_plans')
      .insert({ product_id: product.id, name: 'Team', price_minor: 9000, duration: 'yearly' })
      .returning('id');
    planId = (plan as { id: number }).id;
  });
  after(() => server.close());

  it('lists the plan’s features in /verify and the certificate the moment the merchant saves them', async () => {
    const license = await insertLicense(product, { plan_id: planId });
    const first = await verify(server, { product_id: product.id, license_key: license.key });
    expect((first.body.data as { entitlements: unknown }).entitlements).to.deep.equal({});

    const saved = await put(`/products/${product.id}/plans/${planId}/entitlements`, {
      entitlements: { pro_export: true, max_projects: 10, tier: 'team' },
    });
    expect(saved.status, saved.text).to.equal(200);
    expect((saved.body.data as { entitlements: unknown }).entitlements).to.deep.equal({
      pro_export: true,
      max_projects: 10,
      tier: 'team',
    });
    const shown = await server.request(`/shawarma/products/${product.id}/plans/${planId}/entitlements`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect((shown.body.data as { name: string }).name).to.equal('Team');

    const after = await verify(server, { product_id: product.id, license_key: license.key });
    expect((after.body.data as { entitlements: unknown }).entitlements).to.deep.equal({
      pro_export: true,
      max_projects: 10,
      tier: 'team',
    });
    const cert = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: product.id, license_key: license.key },
    });
    expect(cert.status, cert.text).to.equal(200);
    const payload = (cert.body.data as { certificate: string }).certificate.split('.')[1]!;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      entitlements: unknown;
    };
    expect(claims.entitlements).to.deep.equal({ pro_export: true, max_projects: 10, tier: 'team' });
  });

  it('refuses bad feature names and values with a 422 naming the field, and another store’s plan with 404', async () => {
    const bad = await put(`/products/${product.id}/plans/${planId}/entitlements`, {
      entitlements: { 'Pro Export': true },
    });
    expect(bad.status, bad.text).to.equal(422);
    expect(JSON.stringify(bad.body.errors)).to.contain('entitlements');
    const nested = await put(`/products/${product.id}/plans/${planId}/entitlements`, {
      entitlements: { limits: { a: 1 } },
    });
    expect(nested.status).to.equal(422);

    const other = await createStore();
    const otherToken = await merchantToken(other);
    const foreign = await put(
      `/products/${product.id}/plans/${planId}/entitlements`,
      { entitlements: { pro_export: false } },
      otherToken,
    );
    expect(foreign.status).to.equal(404);
    const row = await deps.knex('product_plans').where({ id: planId }).first('features');
    expect((row as { features: Record<string, unknown> }).features.pro_export).to.not.equal(false);
  });
});
