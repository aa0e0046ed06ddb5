import { expect } from 'chai';
import type { Store } from '../../../db/models';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { ProbeResponse, ProbeServer, startGuardServer } from './guard-app';

const CORS = {
  'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
  'access-control-allow-headers':
    'Content-Type, Authorization, X-Embed-Key, X-Requested-With, Accept, Origin',
  'access-control-allow-credentials': 'false',
  'access-control-max-age': '86400',
  'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
};

function expectEmbedCors(res: ProbeResponse, origin: string): void {
  expect(res.headers['access-control-allow-origin']).to.equal(origin);
  expect(res.headers.vary).to.match(/(^|,\s*)Origin(\s*,|$)/);
  for (const [name, value] of Object.entries(CORS)) expect(res.headers[name], name).to.equal(value);
}

describe('embed guards: embed key, origin check and CORS', () => {
  let server: ProbeServer;
  let open: Store;
  let locked: Store;

  before(async () => {
    // Own rate-limit counters: this suite sends fewer requests than the 30-per-minute embed limit.
    server = await startGuardServer(await isolatedDeps());
    open = await createStore();
    locked = await createStore({ allowed_origins: ['https://shop.acme.test/', 'http://localhost:8080'] });
  });
  after(() => server.close());

  describe('embed key', () => {
    it('finds the store from the X-Embed-Key header', async () => {
      const res = await server.request('/api/embed/echo', { headers: { 'X-Embed-Key': open.embed_key } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: { store_id: open.id, customer_id: null } });
    });

    it('finds the store from the embed_key query parameter', async () => {
      const res = await server.request(`/api/embed/echo?embed_key=${encodeURIComponent(open.embed_key)}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: { store_id: open.id, customer_id: null } });
    });

    it('answers 401 in the embed envelope when the key is missing or unknown', async () => {
      const missing = await server.request('/api/embed/echo', { headers: { Origin: 'https://a.test' } });
      expect(missing.status).to.equal(401);
      expect(missing.body).to.deep.equal({
        success: false,
        error_code: 'embed_key_required',
        message: 'Embed key is required',
      });
      expectEmbedCors(missing, 'https://a.test');

      const unknown = await server.request('/api/embed/echo', { headers: { 'X-Embed-Key': 'emb_pk_nope' } });
      expect(unknown.status).to.equal(401);
      expect(unknown.body).to.deep.equal({
        success: false,
        error_code: 'embed_key_invalid',
        message: 'Invalid embed key',
      });
    });
  });

  describe('origin check', () => {
    const call = (headers: Record<string, string>): Promise<ProbeResponse> =>
      server.request('/api/embed/echo', { headers: { 'X-Embed-Key': locked.embed_key, ...headers } });

    it('accepts an allowed Origin, compared by scheme, host (any case) and port', async () => {
      for (const origin of [
        'https://shop.acme.test',
        'HTTPS://Shop.ACME.test:443',
        'http://localhost:8080',
      ]) {
        const res = await call({ Origin: origin });
        expect(res.status, origin).to.equal(200);
        expect(res.body.data).to.deep.equal({ store_id: locked.id, customer_id: null });
      }
    });

    it('refuses another origin with 403 in the embed envelope, CORS headers included', async () => {
      for (const origin of ['https://evil.test', 'http://shop.acme.test', 'https://shop.acme.test:8443']) {
        const res = await call({ Origin: origin });
        expect(res.status, origin).to.equal(403);
        expect(res.body).to.deep.equal({
          success: false,
          error_code: 'origin_not_allowed',
          message: 'Origin not allowed',
        });
        expectEmbedCors(res, origin);
      }
      // `Origin: null` is refused before any guard, and no CORS header lets the page read why.
      const nul = await call({ Origin: 'null' });
      expect(nul.status).to.equal(403);
      expect(nul.body).to.deep.equal({
        success: false,
        error_code: 'origin_not_allowed',
        message: 'Origin not allowed',
      });
      expect(nul.headers['access-control-allow-origin']).to.equal(undefined);
    });

    it('falls back to the Referer when there is no Origin', async () => {
      const allowed = await call({ Referer: 'https://shop.acme.test/products/ebook?x=1' });
      expect(allowed.status).to.equal(200);
      const refused = await call({ Referer: 'https://evil.test/shop.acme.test' });
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.equal({
        success: false,
        error_code: 'origin_not_allowed',
        message: 'Origin not allowed',
      });
    });

    it('judges by Origin when both are sent', async () => {
      const res = await call({ Origin: 'https://evil.test', Referer: 'https://shop.acme.test/' });
      expect(res.status).to.equal(403);
    });

    it('refuses a request naming no origin at all when origins are configured', async () => {
      const res = await call({});
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({
        success: false,
        error_code: 'origin_not_allowed',
        message: 'Origin not allowed',
      });
    });

    it('accepts any origin, or none, when the store configures none', async () => {
      const variants: Record<string, string>[] = [
        { Origin: 'https://anything.test' },
        { Referer: 'http://x.test/' },
        {},
      ];
      for (const headers of variants) {
        const res = await server.request('/api/embed/echo', {
          headers: { 'X-Embed-Key': open.embed_key, ...headers },
        });
        expect(res.status, JSON.stringify(headers)).to.equal(200);
      }
    });
  });

  describe('cross-origin headers', () => {
    it('answers a preflight with 204, no body and every header, before any guard', async () => {
      const res = await server.request('/api/embed/echo', {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://widget.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type, x-embed-key',
        },
      });
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
      expectEmbedCors(res, 'https://widget.example');
      expect(res.headers).not.to.have.property('x-ratelimit-limit');
    });

    it('answers a preflight on any embed path, even one with no route', async () => {
      const res = await server.request('/api/embed/not/a/route', {
        method: 'OPTIONS',
        headers: { Origin: 'https://shop.acme.test' },
      });
      expect(res.status).to.equal(204);
      expectEmbedCors(res, 'https://shop.acme.test');
    });

    it('sends Access-Control-Allow-Origin * when the request has no Origin', async () => {
      const preflight = await server.request('/api/embed/echo', { method: 'OPTIONS' });
      expect(preflight.status).to.equal(204);
      expectEmbedCors(preflight, '*');
      const get = await server.request('/api/embed/echo', { headers: { 'X-Embed-Key': open.embed_key } });
      expectEmbedCors(get, '*');
    });

    it('puts the headers on successes and on 404 and 422 errors', async () => {
      const ok = await server.request('/api/embed/echo', {
        headers: { 'X-Embed-Key': open.embed_key, Origin: 'https://a.test' },
      });
      expect(ok.status).to.equal(200);
      expectEmbedCors(ok, 'https://a.test');
      expect(ok.headers['x-ratelimit-limit']).to.equal('30');

      const notFound = await server.request('/api/embed/nothing-here', {
        headers: { Origin: 'https://a.test' },
      });
      expect(notFound.status).to.equal(404);
      expect(notFound.body).to.deep.equal({ success: false, error_code: 'not_found', message: 'Not found' });
      expectEmbedCors(notFound, 'https://a.test');

      const invalid = await server.request('/api/embed/validate-probe', {
        method: 'POST',
        headers: { 'X-Embed-Key': open.embed_key, Origin: 'https://a.test' },
        json: { product_id: 'abc' },
      });
      expect(invalid.status).to.equal(422);
      expect(invalid.body).to.deep.equal({
        success: false,
        error_code: 'validation_failed',
        message: 'Invalid request',
        errors: { product_id: ['product_id must be a number'] },
      });
      expectEmbedCors(invalid, 'https://a.test');
    });

    it('leaves other interfaces without the embed CORS headers', async () => {
      const res = await server.request('/verify', {
        method: 'POST',
        headers: { Origin: 'https://a.test' },
        json: {},
      });
      expect(res.status).to.equal(200);
      expect(res.headers).not.to.have.property('access-control-allow-origin');
    });
  });
});

describe('embed CORS as mounted by createApp()', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer(await isolatedDeps());
  });
  after(() => server.close());

  it('answers a preflight with 204 and puts the headers on an embed 404', async () => {
    const preflight = await server.request('/api/embed/auth/start', {
      method: 'OPTIONS',
      headers: { Origin: 'https://widget.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.text).to.equal('');
    expect(preflight.headers.get('access-control-allow-origin')).to.equal('https://widget.example');
    for (const [name, value] of Object.entries(CORS))
      expect(preflight.headers.get(name), name).to.equal(value);

    const missing = await server.request('/api/embed/nothing-here', {
      headers: { Origin: 'https://widget.example' },
    });
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('access-control-allow-origin')).to.equal('https://widget.example');
    expect(missing.headers.get('access-control-allow-credentials')).to.equal('false');
  });
});
