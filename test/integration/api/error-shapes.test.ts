import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Store } from '../../../db/models';
import { createStore } from '../../helpers/builders';
import { checkSchema } from '../../helpers/contract';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import type { Deps } from '../../../shared/deps';
import { gameServer } from '../fivem/support';

/**
 * Every interface's failures, driven over HTTP: test/helpers/http.ts holds each answer to the OpenAPI
 * document's schema for its operation and status, and answers to paths no operation documents are held
 * to their interface's error schema here. Where the spec leaves the shape open (platform routes,
 * analytics, FiveM) the body is the one error object of docs/errors.md; each `error_code` is a row there.
 */
describe('error shapes, as documented and as sent', function () {
  this.timeout(20_000);
  const guide = readFileSync(path.join(__dirname, '../../../docs/errors.md'), 'utf8');
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let host: string;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    host = `shapes-${Date.now()}.test`;
    store = await createStore({ domains: [host] });
  });
  after(() => server.close());

  const from = (headers: Record<string, string> = {}) => ({ 'X-Forwarded-For': randomIp(), ...headers });

  /** The one error object, exactly: the code, its page and anchor, `errors` only when given. */
  function expectErrorObject(res: TestResponse, status: number, code: string, extra: object = {}): void {
    expect(res.status, res.text).to.equal(status);
    expect(res.body, res.text).to.deep.equal({
      ...extra,
      error_code: code,
      message: res.body.message,
      ...(res.body.errors ? { errors: res.body.errors } : {}),
      doc_url: `/docs/errors.md#${code}`,
    });
    expect(res.body.message).to.be.a('string').and.not.equal('');
    expect(guide, `docs/errors.md row for ${code}`).to.include(`| \`${code}\``);
  }

  it('answers the platform routes’ failures with the one error object', async () => {
    const unknown = await server.request('/no-such-page', { headers: from() });
    checkSchema(deps.config.nodeEnv, 'PlatformError', unknown.body);
    expectErrorObject(unknown, 404, 'not_found');
    expect(unknown.body.message).to.equal('Not found');

    const invalid = await server.request('/__dev/outbox', { headers: from() });
    expectErrorObject(invalid, 422, 'validation_failed');
    expect(invalid.body.errors).to.have.property('to');

    const guideMissing = await server.request('/docs/no-such-guide.md', { headers: from() });
    expect(guideMissing.body).to.not.have.property('error');
    expectErrorObject(guideMissing, 422, 'validation_failed');
    expect(guideMissing.body.errors).to.have.property('page');
  });

  it('answers analytics failures, 429 included, with the one error object', async () => {
    const collect = '/api/storefront/analytics/collect';
    // A host no store holds (another file in this process may have seeded the demo store, whose fixture
    // domains include 127.0.0.1, the test server's own host).
    const unresolved = await server.request(collect, {
      method: 'POST',
      json: {},
      headers: from({ Host: 'no-store.invalid' }),
    });
    expectErrorObject(unresolved, 400, 'store_not_resolved');

    const ip = randomIp();
    const tooLong = await server.request(collect, {
      method: 'POST',
      json: { session_id: 'x'.repeat(65) },
      headers: { Host: host, 'X-Forwarded-For': ip },
    });
    expectErrorObject(tooLong, 422, 'validation_failed');
    expect(tooLong.body.errors).to.have.property('session_id');

    const malformed = await server.request(collect, {
      method: 'POST',
      body: '{"type":',
      headers: { Host: host, 'X-Forwarded-For': ip, 'Content-Type': 'application/json' },
    });
    expectErrorObject(malformed, 400, 'malformed_json');

    const events = Array.from({ length: 30 }, () => ({ type: 'event', event_name: 'shape' }));
    let limited: TestResponse | null = null;
    for (let i = 0; i < 6 && !limited; i++) {
      const res = await server.request(`${collect}/batch`, {
        method: 'POST',
        json: { events },
        headers: { Host: host, 'X-Forwarded-For': ip },
      });
      if (res.status === 429) limited = res;
      else expect(res.status, res.text).to.equal(202);
    }
    expect(limited, 'a 429 past 120 events a minute').to.not.equal(null);
    expectErrorObject(limited!, 429, 'rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).to.be.greaterThan(0);
  });

  it('answers FiveM failures with success false and the one error object', async () => {
    const keyless = await server.request('/api/fivem/queue', { headers: from() });
    expectErrorObject(keyless, 401, 'unauthenticated', { success: false });

    const { secret } = await gameServer(deps, store, 'shapes');
    const invalid = await server.request('/api/fivem/queue', {
      method: 'DELETE',
      json: { ids: ['one'] },
      headers: from({ 'X-FiveM-Secret': secret }),
    });
    expectErrorObject(invalid, 422, 'validation_failed', { success: false });

    const unknown = await server.request('/api/fivem/nothing-here', {
      headers: from({ 'X-FiveM-Secret': secret }),
    });
    checkSchema(deps.config.nodeEnv, 'FiveMError', unknown.body);
    expectErrorObject(unknown, 404, 'not_found', { success: false });
  });

  it('keeps the spec’s envelopes on Embed, Storefront, Merchant and License, each as documented', async () => {
    const embed = await server.request('/api/embed/nothing-here', { headers: from() });
    checkSchema(deps.config.nodeEnv, 'EmbedError', embed.body);
    expect(embed.body).to.deep.equal({ success: false, error_code: 'not_found', message: 'Not found' });
    const keyless = await server.request('/api/embed/product/1', { headers: from() });
    expect(keyless.status).to.equal(401);
    expect(keyless.body).to.deep.equal({
      success: false,
      message: 'Embed key is required',
      error_code: 'embed_key_required',
    });

    const storefront = await server.request('/api/wishlist', { headers: from({ Host: host }) });
    expect(storefront.status).to.equal(401);
    expect(storefront.body).to.include({ success: false, data: null, error_code: 'unauthenticated' });
    checkSchema(deps.config.nodeEnv, 'StorefrontError', storefront.body);

    const merchant = await server.request('/shawarma/nothing-here', { headers: from() });
    checkSchema(deps.config.nodeEnv, 'MerchantError', merchant.body);
    expect(merchant.body).to.include({ data: null, api: 'merchant', error: true, error_code: 'not_found' });

    const license = await server.request('/verify', { method: 'POST', json: {}, headers: from() });
    expect(license.status).to.equal(422);
    expect(license.body).to.include({ success: false, error_code: 'VALIDATION_FAILED' });
    const licensePath = await server.request('/verify/nothing-here', { method: 'POST', headers: from() });
    expect(licensePath.status).to.equal(404);
    expect(licensePath.body).to.include({ success: false, error_code: 'NOT_FOUND' });
    for (const res of [embed, keyless, storefront, merchant, license, licensePath]) {
      expect(guide, `docs/errors.md row for ${String(res.body.error_code)}`).to.include(
        `| \`${String(res.body.error_code)}\``,
      );
    }
  });
});
