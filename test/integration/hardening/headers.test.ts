import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import type { Store } from '../../../db/models';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { guestCheckout, OpenedCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

const DASHBOARD = { username: 'ops', password: 'dashboard-password-01' };
const BASIC = `Basic ${Buffer.from(`${DASHBOARD.username}:${DASHBOARD.password}`).toString('base64')}`;

/**
 * Helmet's headers on every answer, a Content-Security-Policy that forbids framing on
 * every HTML page, and CORS only where browsers are meant to call: Embed (exactly as the spec words it),
 * Storefront and analytics, never for `Origin: null`, never on server-to-server interfaces. The HTML
 * pages are then loaded in a real Chromium to show they still work under their policy.
 */
describe('security headers and CORS', function () {
  this.timeout(60_000);
  let server: TestServer;
  let store: Store;
  let checkout: OpenedCheckout;

  before(async () => {
    server = await startServer(
      await isolatedDeps({
        TRUST_PROXY: '1',
        DASHBOARD_USER: DASHBOARD.username,
        DASHBOARD_PASSWORD: DASHBOARD.password,
      }),
    );
    store = await createStore({ domains: ['headers.localhost'] });
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
    const product = await createProduct(store);
    checkout = await guestCheckout(server, store, { product_id: product.id });
  });
  after(() => server.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    server.request(path, { headers: { 'X-Forwarded-For': randomIp(), ...headers } });

  it('HTML pages forbid framing (CSP frame-ancestors and X-Frame-Options) and sniffing', async () => {
    const pages: [string, Record<string, string>][] = [
      [`/pay/${checkout.checkoutUrl}`, {}],
      ['/sandbox/checkout/unknown', {}],
      ['/docs', {}],
      ['/admin/queues', { Authorization: BASIC }],
    ];
    for (const [path, headers] of pages) {
      const res = await get(path, headers);
      expect(res.headers.get('content-type'), path).to.match(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).to.include("frame-ancestors 'none'");
      // Scripts from this server only, or (the payment pages' own, stricter policy) none at all.
      expect(
        csp.includes("script-src 'self'") || csp.includes("default-src 'none'"),
        `${path}: ${csp}`,
      ).to.equal(true);
      expect(csp.includes("default-src 'self'") || csp.includes("default-src 'none'"), path).to.equal(true);
      expect(res.headers.get('x-frame-options'), path).to.equal('DENY');
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('referrer-policy'), path).to.equal('no-referrer');
    }
  });

  it('sends nosniff on every answer, JSON and errors included', async () => {
    for (const path of ['/healthz', '/openapi.json', '/api/embed/product/1', '/shawarma/store', '/nowhere']) {
      const res = await get(path);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('x-frame-options'), path).to.equal('DENY');
    }
  });

  it('keeps the Embed CORS exactly as the spec gives it, and opens the Storefront without credentials', async () => {
    const origin = 'https://shop.example.test';
    for (const path of ['/api/embed/product/1', '/api/auth/start', '/api/storefront/analytics/collect']) {
      const preflight = await server.request(path, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', Host: 'headers.localhost' },
      });
      expect(preflight.status, path).to.equal(204);
      expect(preflight.headers.get('access-control-allow-origin'), path).to.equal(origin);
      expect(preflight.headers.get('access-control-allow-credentials'), path).to.equal('false');
      expect(preflight.headers.get('vary'), path).to.match(/Origin/);
    }
    const embed = await get('/api/embed/product/1', { Origin: origin, 'X-Embed-Key': store.embed_key });
    expect(
      Object.fromEntries([...embed.headers].filter(([k]) => k.startsWith('access-control-'))),
    ).to.deep.equal({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'access-control-allow-headers':
        'Content-Type, Authorization, X-Embed-Key, X-Requested-With, Accept, Origin',
      'access-control-allow-credentials': 'false',
      'access-control-max-age': '86400',
      'access-control-expose-headers':
        'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
    });
  });

  it('refuses Origin: null on the browser interfaces, with no CORS headers', async () => {
    for (const [path, method] of [
      ['/api/embed/product/1', 'GET'],
      ['/api/embed/auth/start', 'OPTIONS'],
      ['/api/auth/start', 'POST'],
    ]) {
      const res = await server.request(path, {
        method,
        headers: {
          Origin: 'null',
          'X-Embed-Key': store.embed_key,
          Host: 'headers.localhost',
          'X-Forwarded-For': randomIp(),
        },
      });
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body).to.include({ success: false, message: 'Origin not allowed' });
      expect(res.headers.get('access-control-allow-origin'), path).to.equal(null);
    }
  });

  it('sends no CORS headers on server-to-server interfaces', async () => {
    const origin = 'https://evil.example.test';
    for (const path of ['/shawarma/store', '/verify', '/api/fivem/queue', '/webhooks/sandbox']) {
      for (const method of ['OPTIONS', 'GET', 'POST']) {
        const res = await server.request(path, {
          method,
          headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'X-Forwarded-For': randomIp() },
        });
        const cors = [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
        expect(cors, `${method} ${path}`).to.deep.equal([]);
      }
    }
  });

  describe('the HTML pages still work in a browser under their policy', () => {
    let browser: Browser;

    before(async () => {
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless: true,
        // Only loopback resolves: nothing a page loads can leave the machine.
        args: [
          '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.0.0.1',
          '--disable-dev-shm-usage',
          '--disable-gpu',
        ],
      });
    });
    after(() => browser?.close());

    /** Opens `path` and returns the page and the CSP violations it reported (other than external fonts). */
    async function open(path: string, auth = false): Promise<{ page: Page; violations: string[] }> {
      const context = await browser.newContext(auth ? { httpCredentials: DASHBOARD } : {});
      context.setDefaultTimeout(15_000);
      const page = await context.newPage();
      // Strings, not functions: they run in the page, and this project compiles without the DOM types.
      await page.addInitScript({
        content:
          'window.__csp = []; document.addEventListener("securitypolicyviolation", ' +
          '(e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));',
      });
      await page.goto(server.url + path);
      const violations = (await page.evaluate<string[]>('window.__csp || []')).filter(
        // The queue dashboard asks Google Fonts for its typeface; refused by design, it falls back.
        (v) => !/fonts\.(googleapis|gstatic)\.com/.test(v),
      );
      return { page, violations };
    }

    it('/docs renders Swagger UI with the document', async () => {
      const { page } = await open('/docs');
      await page.locator('.swagger-ui .info .title').waitFor();
      expect(await page.locator('.swagger-ui .info .title').innerText()).to.include('Commerce Platform API');
      await page.locator('.opblock').first().waitFor();
      const violations = await page.evaluate<string[]>('window.__csp');
      expect(violations).to.deep.equal([]);
      await page.context().close();
    });

    it('/admin/queues renders the dashboard with the queues', async () => {
      const { page } = await open('/admin/queues', true);
      await page.getByText('otp', { exact: false }).first().waitFor();
      const violations = (await page.evaluate<string[]>('window.__csp')).filter(
        (v) => !/fonts\.(googleapis|gstatic)\.com/.test(v),
      );
      expect(violations).to.deep.equal([]);
      await page.context().close();
    });

    it('/pay renders its buttons, styled by its inline stylesheet', async () => {
      const { page, violations } = await open(`/pay/${checkout.checkoutUrl}`);
      const button = page.getByRole('button', { name: /Pay/ }).first();
      await button.waitFor();
      // The inline <style> applied: the buttons are blue, not the browser's grey.
      expect(
        await page.evaluate("getComputedStyle(document.querySelector('form button')).backgroundColor"),
      ).to.equal('rgb(31, 111, 235)');
      expect(violations).to.deep.equal([]);
      await page.context().close();
    });
  });
});
