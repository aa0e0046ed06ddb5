import { expect } from 'chai';
import { CustomerAccessToken, OtpSession, Store } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { LIMITS } from '../../../shared/rate-limits';
import { createCustomer, createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { ApiClient, embedClient, latestCode, randomIp, storefrontClient, wrongCode } from '../../helpers/otp';

let seq = 0;
function freshPhone(): string {
  seq += 1;
  return `56${String(Date.now() % 10_000).padStart(4, '0')}${String(seq).padStart(3, '0')}`;
}

describe('Storefront API authentication (same OTP engine)', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let domain: string;
  let client: ApiClient;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    domain = `shop-${Date.now()}.example.test`;
    store = await createStore({ domains: [domain] });
    client = storefrontClient(server, domain);
  });
  after(() => server.close());

  async function start(phone = freshPhone()) {
    const res = await client.post('/api/auth/start', { country_code: '+966', phone });
    return {
      res,
      e164: `966${phone}`,
      token: (res.body.data as { session_token: string } | undefined)?.session_token ?? '',
    };
  }

  it('signs an existing customer in with a storefront token in the storefront envelope', async () => {
    const customer = await createCustomer(store, { phone: freshPhone() });
    const { res, token } = await start(customer.phone);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ success: true, message: null });
    expect(res.body.data).to.have.keys('session_token', 'expires_in', 'resend_cooldown', 'masked_phone');

    const verified = await client.post('/api/auth/verify', {
      session_token: token,
      code: await latestCode(deps, customer.e164),
    });
    expect(verified.status).to.equal(200);
    const data = verified.body.data as { status: string; token: string; customer: { id: number } };
    expect(data.status).to.equal('authenticated');
    expect(data.customer.id).to.equal(customer.id);
    expect(data.token).to.match(/^cst_/);
    const stored = await CustomerAccessToken.query(deps.knex).findOne({ token_hash: sha256(data.token) });
    expect(stored).to.include({ name: 'storefront', store_id: store.id });
    expect(stored!.abilities).to.deep.equal(['storefront']);

    // The Embed API refuses the storefront token.
    const product = await createProduct(store);
    const embed = await embedClient(server, store.embed_key).post(
      '/api/embed/auth/validate',
      { product_id: product.id },
      { Authorization: `Bearer ${data.token}` },
    );
    expect(embed.status).to.be.oneOf([401, 403]);
  });

  it('registers a new phone through /api/auth/complete', async () => {
    const { token, e164 } = await start();
    const verified = await client.post('/api/auth/verify', {
      session_token: token,
      code: await latestCode(deps, e164),
    });
    expect(verified.body.data).to.deep.equal({ status: 'needs_registration', session_token: token });
    const done = await client.post('/api/auth/complete', {
      session_token: token,
      firstName: 'Lina',
      lastName: 'H',
      email: 'lina@example.com',
    });
    expect(done.status).to.equal(200);
    expect((done.body.data as { token: string }).token).to.match(/^cst_/);
    const again = await client.post('/api/auth/complete', {
      session_token: token,
      firstName: 'Lina',
      lastName: 'H',
      email: 'lina@example.com',
    });
    expect(again.status).to.equal(400);
    expect(again.body).to.deep.equal({
      success: false,
      error_code: 'registration_not_allowed',
      data: null,
      message: 'Registration not allowed for this session',
    });
  });

  it('keeps embed and storefront sessions apart', async () => {
    const { token } = await start();
    const product = await createProduct(store);
    expect(product.id).to.be.a('number');
    const viaEmbed = await embedClient(server, store.embed_key).post('/api/embed/auth/verify', {
      session_token: token,
      code: '1234',
    });
    expect(viaEmbed.status).to.equal(404);
  });

  it('answers 400 when the store cannot be resolved and 422 for bad input', async () => {
    const unknownHost = await storefrontClient(server, 'nowhere.example.test').post('/api/auth/start', {
      country_code: '966',
      phone: freshPhone(),
    });
    expect(unknownHost.status).to.equal(400);
    expect(unknownHost.body.success).to.equal(false);
    const bad = await client.post('/api/auth/start', { phone: 'abc' });
    expect(bad.status).to.equal(422);
    expect(bad.body.errors).to.have.keys('country_code', 'phone');
  });

  it('allows 5 verify attempts per minute per IP; the 429 body is the message only', async () => {
    const ip = randomIp();
    const fromIp = storefrontClient(server, domain, ip);
    const { token, e164 } = await start();
    const code = await latestCode(deps, e164);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await fromIp.post('/api/auth/verify', { session_token: token, code: wrongCode(code) });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Object.keys(res.body)).to.deep.equal(['message']);
        expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      }
    }
    expect(statuses.slice(0, 5).every((s) => s === 400)).to.equal(true);
    expect(statuses[5]).to.equal(429);
  });

  it('limits starts to 10 per phone and 50 per IP a day, and resends to 3 per 10 minutes', async () => {
    const phone = freshPhone();
    for (let i = 0; i < 10; i += 1) expect((await start(phone)).res.status).to.equal(200);
    const limited = await start(phone);
    expect(limited.res.status).to.equal(429);
    expect(Object.keys(limited.res.body)).to.deep.equal(['message']);

    const ip = randomIp();
    await deps.services.rateLimiter.consume([{ def: LIMITS.storefrontAuthStartPerIp, key: ip, cost: 50 }]);
    const byIp = await storefrontClient(server, domain, ip).post('/api/auth/start', {
      country_code: '966',
      phone: freshPhone(),
    });
    expect(byIp.status).to.equal(429);

    const { token } = await start();
    for (let i = 0; i < 4; i += 1) {
      await OtpSession.query(deps.knex)
        .patch({ last_sent_at: new Date(Date.now() - 3600_000) })
        .where({ token_hash: sha256(token) });
      const res = await client.post('/api/auth/resend', { session_token: token });
      if (i < 3) {
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({
          success: true,
          data: { resend_cooldown: 30 },
          message: 'A new verification code has been sent by SMS.',
        });
      } else {
        expect(res.status).to.equal(429);
      }
    }
  });
});
