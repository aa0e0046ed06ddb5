import crypto from 'node:crypto';
import { expect } from 'chai';
import { CustomerAccessToken, MerchantToken, Store } from '../../../db/models';
import type { Customer } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import { createCustomer, createStore, customerToken, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { ProbeServer, startGuardServer } from './guard-app';

const uniqueDomain = (label: string): string => `${label}-${crypto.randomBytes(4).toString('hex')}.test`;

describe('auth guards: customer tokens, merchant tokens, storefront store', () => {
  let server: ProbeServer;
  let store: Store;
  let domain: string;
  let customer: Customer;

  before(async () => {
    server = await startGuardServer(await isolatedDeps());
    domain = uniqueDomain('shop');
    store = await createStore({ domains: [domain] });
    customer = await createCustomer(store);
  });
  after(() => server.close());

  const embedCheckout = (token: string | null) =>
    server.request('/api/embed/checkout-probe', {
      method: 'POST',
      headers: { 'X-Embed-Key': store.embed_key, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      json: {},
    });
  const wishlist = (token: string | null, host = domain) =>
    server.request('/api/wishlist-probe', {
      headers: { Host: host, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    });

  describe('customer tokens', () => {
    const unauthenticated = {
      success: false,
      data: null,
      message: 'Unauthenticated.',
      error_code: 'unauthenticated',
    };

    it('accepts an embed token on an embed route that needs embed:checkout', async () => {
      const res = await embedCheckout(await customerToken(customer, 'embed'));
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        success: true,
        data: { store_id: store.id, customer_id: customer.id },
      });
    });

    it('refuses an embed token on the Storefront with 401', async () => {
      const res = await wishlist(await customerToken(customer, 'embed'));
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal(unauthenticated);
    });

    it('accepts a storefront token on the Storefront', async () => {
      const res = await wishlist(await customerToken(customer, 'storefront'));
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        success: true,
        data: { store_id: store.id, customer_id: customer.id },
        message: null,
      });
    });

    it('refuses a storefront token on an embed route with 403', async () => {
      const res = await embedCheckout(await customerToken(customer, 'storefront'));
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({
        success: false,
        error_code: 'token_ability_missing',
        message: 'Token does not have the required ability',
      });
    });

    it('refuses an embed token that lacks the ability the route needs with 403', async () => {
      const token = await customerToken(customer, 'embed');
      await CustomerAccessToken.query()
        .patch({ abilities: ['embed:validate'] })
        .where('token_hash', sha256(token));
      const res = await embedCheckout(token);
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({
        success: false,
        error_code: 'token_ability_missing',
        message: 'Token does not have the required ability',
      });
    });

    it('answers 401 for a missing, unknown, malformed, expired or revoked token', async () => {
      const expired = await customerToken(customer, 'storefront');
      await CustomerAccessToken.query()
        .patch({ expires_at: new Date(Date.now() - 1000) })
        .where('token_hash', sha256(expired));
      const revoked = await customerToken(customer, 'storefront');
      await CustomerAccessToken.query()
        .patch({ revoked_at: new Date() })
        .where('token_hash', sha256(revoked));

      for (const token of [null, 'cst_unknown', expired, revoked]) {
        const res = await wishlist(token);
        expect(res.status, String(token)).to.equal(401);
        expect(res.body).to.deep.equal(unauthenticated);
      }
      const malformed = await server.request('/api/wishlist-probe', {
        headers: { Host: domain, Authorization: `Basic ${expired}` },
      });
      expect(malformed.status).to.equal(401);

      const embedExpired = await customerToken(customer, 'embed');
      await CustomerAccessToken.query()
        .patch({ expires_at: new Date(Date.now() - 1000) })
        .where('token_hash', sha256(embedExpired));
      const embedRes = await embedCheckout(embedExpired);
      expect(embedRes.status).to.equal(401);
      expect(embedRes.body).to.deep.equal({
        success: false,
        error_code: 'unauthenticated',
        message: 'Unauthenticated.',
      });
    });

    it("refuses on the Storefront a token of another store's customer", async () => {
      const other = await createStore({ domains: [uniqueDomain('other')] });
      const stranger = await createCustomer(other);
      const res = await wishlist(await customerToken(stranger, 'storefront'));
      expect(res.status).to.equal(401);
    });

    it('records when a token was last used, at most once a minute', async () => {
      const token = await customerToken(customer, 'storefront');
      const lastUsed = async (): Promise<Date | null> =>
        (await CustomerAccessToken.query().findOne({ token_hash: sha256(token) }))?.last_used_at ?? null;
      expect(await lastUsed()).to.equal(null);
      await wishlist(token);
      const first = await lastUsed();
      expect(first).to.be.instanceOf(Date);
      await wishlist(token);
      expect((await lastUsed())?.getTime()).to.equal(first?.getTime());
    });
  });

  describe('merchant tokens', () => {
    it('resolves the store of a paid plan and answers in the merchant envelope', async () => {
      const res = await server.request('/shawarma/store', {
        headers: { Authorization: `Bearer ${await merchantToken(store)}` },
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ message: null, api: 'merchant' });
      expect(res.body.data).to.deep.equal({ store_id: store.id, customer_id: null });
      expect(res.body.timestamp).to.be.a('number');
      expect(res.headers['x-ratelimit-limit']).to.equal('60');
      expect(res.headers['x-ratelimit-remaining']).to.equal('59');
    });

    it('refuses a store on the free plan with 403', async () => {
      const free = await createStore({ plan: 'free' });
      const res = await server.request('/shawarma/store', {
        headers: { Authorization: `Bearer ${await merchantToken(free)}` },
      });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({
        message: 'The Merchant API requires a paid plan.',
        data: null,
        api: 'merchant',
        error: true,
      });
    });

    it('answers 401 for a missing, unknown or revoked token', async () => {
      const revoked = await merchantToken(store);
      await MerchantToken.query().patch({ revoked_at: new Date() }).where('token_hash', sha256(revoked));
      const attempts: Record<string, string>[] = [
        {},
        { Authorization: 'Bearer mt_unknown' },
        { Authorization: `Bearer ${revoked}` },
      ];
      for (const headers of attempts) {
        const res = await server.request('/shawarma/store', { headers });
        expect(res.status, JSON.stringify(headers)).to.equal(401);
        expect(res.body).to.include({
          message: 'Unauthenticated.',
          data: null,
          api: 'merchant',
          error: true,
        });
      }
    });
  });

  describe('storefront store resolution', () => {
    const unresolved = {
      success: false,
      data: null,
      message: 'Store could not be resolved from the request',
      error_code: 'store_not_resolved',
    };

    it('finds the store from the Host, ignoring the port and case', async () => {
      for (const host of [domain, `${domain}:8080`, domain.toUpperCase()]) {
        const res = await server.request('/api/store-probe', { headers: { Host: host } });
        expect(res.status, host).to.equal(200);
        expect(res.body.data).to.deep.equal({ store_id: store.id, customer_id: null });
      }
    });

    it('falls back to the host of the Origin', async () => {
      const res = await server.request('/api/store-probe', {
        headers: { Host: 'api.platform.test', Origin: `https://${domain}:3000` },
      });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ store_id: store.id, customer_id: null });
    });

    it('answers 400 when neither names a store, on the Storefront and on analytics', async () => {
      const res = await server.request('/api/store-probe', {
        headers: { Host: 'unknown.test', Origin: 'https://also-unknown.test' },
      });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal(unresolved);

      const analytics = await server.request('/api/storefront/analytics/collect/batch', {
        method: 'POST',
        headers: { Host: 'unknown.test' },
        json: { events: [{ type: 'pageview' }] },
      });
      expect(analytics.status).to.equal(400);
    });
  });
});
