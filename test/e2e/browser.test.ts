import { expect } from 'chai';
import http from 'node:http';
import net from 'node:net';
import { chromiumExecutable, withPage } from '../helpers/browser';

/**
 * The browser the real-browser tests share (test/helpers/browser.ts): Debian's Chromium, headless, driven
 * by playwright-core, and unable to reach anything but loopback.
 */
describe('the test browser', function () {
  this.timeout(60_000);

  let server: http.Server;
  let base: string;
  const seen: string[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(`${req.headers['accept-language'] ?? ''} ${req.url ?? ''}`);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      // A page that reaches for an outside stylesheet, as a careless page would for a web font.
      res.end(
        '<!doctype html><html lang="en"><head><title>Loopback</title>' +
          '<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter"></head>' +
          '<body><form method="post" action="/done"><button>Go</button></form></body></html>',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is the system Chromium', () => {
    expect(chromiumExecutable()).to.match(/chromium/);
  });

  it('loads a loopback page with the locale asked for, submits its form, and reaches nothing else', async () => {
    const failed: string[] = [];
    const title = await withPage(
      async (page) => {
        page.on('requestfailed', (request) => failed.push(new URL(request.url()).host));
        await page.goto(`${base}/start`);
        await page.getByRole('button', { name: 'Go' }).click();
        await page.waitForURL(`${base}/done`);
        return page.title();
      },
      { locale: 'ar' },
    );
    expect(title).to.equal('Loopback');
    expect(seen).to.include('ar /start');
    expect(seen).to.include('ar /done');
    expect(failed).to.include('fonts.googleapis.com');
  });
});
