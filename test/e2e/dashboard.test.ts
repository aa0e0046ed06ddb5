import { expect } from 'chai';
import { withPage } from '../helpers/browser';
import { isolatedDeps } from '../helpers/deps';
import { startServer, TestServer } from '../helpers/http';

/**
 * The queue dashboard in a real browser, opened the way the start banner suggests an operator might:
 * with the credentials in the address. It must read as a product (its labels, the queues), and load
 * nothing from outside this server (no web fonts from Google).
 */
describe('queue dashboard in a browser', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    const deps = await isolatedDeps({ DASHBOARD_USER: 'ops', DASHBOARD_PASSWORD: 'dashboard-secret-1' });
    server = await startServer(deps);
  });
  after(() => server.close());

  it('opened with the credentials in the URL, shows its labels and the queues, all from this server', async () => {
    const port = new URL(server.url).port;
    const { text, outside } = await withPage(async (page) => {
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (!new URL(request.url()).host.startsWith('127.0.0.1')) elsewhere.push(request.url());
      });
      await page.goto(`http://ops:dashboard-secret-1@127.0.0.1:${port}/admin/queues`);
      await page.getByText('payments', { exact: true }).first().waitFor({ timeout: 20_000 });
      return { text: await page.locator('body').innerText(), outside: elsewhere };
    });
    expect(text).to.contain('Commerce queues');
    for (const queue of ['otp', 'payments', 'fulfilment', 'maintenance']) expect(text).to.contain(queue);
    // A label whose translation did not load shows as its key, e.g. "DASHBOARD.TITLE" or "QUEUE.STATUS.ACTIVE".
    expect(text).to.not.match(/\b[A-Z]+(\.[A-Z_]+)+\b/);
    expect(outside).to.deep.equal([]);
  });
});
