import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { Deps } from '../../shared/deps';
import { recordMerchantEvent } from '../../shared/events/merchant-webhooks';
import { createEndpoint } from '../../shared/services/webhooks';
import { createMerchantWebhooksProcessor } from '../../workers/processors/merchant-webhooks';
import { WorkerPool } from '../../workers/worker-pool';
import { withPage } from '../helpers/browser';
import { createStore } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { startServer, TestServer } from '../helpers/http';
import { waitFor } from '../integration/queues/support';

const USER = 'ops';
const PASSWORD = 'dashboard-secret-1';

/** A merchant's webhook endpoint on 127.0.0.1 that is down (503) until `up` is set. */
function receiver(): { url: () => string; up: boolean; hits: number; close(): Promise<void> } {
  const state = {
    up: false,
    hits: 0,
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.hits += 1;
      res.statusCode = state.up ? 200 : 503;
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  return state;
}

/**
 * The queue dashboard in a real browser, as an operator uses it: opened with the credentials in the
 * address (as the start banner prints it), the overview lists every queue with its counts, a click opens
 * a queue at its own address, a reload stays there, and a failed job retried from its page really runs
 * again. Everything loads from this server (no web fonts from Google), and no label shows as its
 * translation key.
 */
describe('queue dashboard in a browser', function () {
  this.timeout(90_000);
  let deps: Deps;
  let server: TestServer;
  let origin: string;

  before(async () => {
    deps = await isolatedDeps({ DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD });
    server = await startServer(deps);
    origin = server.url.replace(/\/$/, '');
  });
  after(() => server.close());

  async function expectTranslated(page: Page): Promise<string> {
    const text = await page.locator('body').innerText();
    // A label whose translation did not load shows as its key, e.g. "QUEUE.STATUS.ACTIVE".
    expect(text).to.not.match(/\b[A-Z]+(\.[A-Z_]+)+\b/);
    return text;
  }

  it('opened with the credentials in the address: the overview, a queue at its own address, a reload', async () => {
    const withCredentials = origin.replace('://', `://${USER}:${PASSWORD}@`);
    await withPage(async (page) => {
      const elsewhere: string[] = [];
      page.on('request', (request) => {
        if (!new URL(request.url()).host.startsWith('127.0.0.1')) elsewhere.push(request.url());
      });
      await page.goto(`${withCredentials}/admin/queues`);
      // The overview: one card per queue with its job count.
      await page.getByText('0 Jobs').first().waitFor({ timeout: 20_000 });
      const overview = await expectTranslated(page);
      expect(overview).to.contain('Commerce queues');
      for (const queue of Object.keys(deps.queues)) expect(overview).to.contain(queue);
      expect(page.url()).to.equal(`${origin}/admin/queues`);

      await page.getByRole('link', { name: 'payments', exact: true }).first().click();
      await page.waitForURL(`${origin}/admin/queues/queue/payments`);
      await page.getByText('No latest jobs in this queue.').waitFor();

      await page.reload();
      await page.getByText('No latest jobs in this queue.').waitFor();
      expect(page.url()).to.equal(`${origin}/admin/queues/queue/payments`);
      await expectTranslated(page);
      expect(elsewhere).to.deep.equal([]);
    });
  });

  it('retries a failed job from its page, and the work is really done again', async () => {
    const endpoint = receiver();
    // Test-only relaxation: deliveries may reach the receiver on 127.0.0.1.
    const workers = await WorkerPool.start(deps, {
      registry: { 'merchant-webhooks': createMerchantWebhooksProcessor({ allowPrivateAddresses: true }) },
      queues: ['merchant-webhooks'],
    });
    try {
      const store = await createStore();
      await createEndpoint(deps, store.id, { url: endpoint.url(), events: ['order.created'] });
      const [deliveryId] = await recordMerchantEvent(deps.knex, store.id, {
        id: `order.created:dashboard-${store.id}`,
        type: 'order.created',
        data: { order_id: 1 },
      });
      const queue = deps.queues['merchant-webhooks'];
      const jobId = `dashboard-retry-${deliveryId}`;
      await queue.add(
        'merchant-webhooks',
        { deliveryId: deliveryId! },
        { jobId, attempts: 1, backoff: { type: 'fixed', delay: 20 } },
      );
      await waitFor('the delivery job to fail', async () => {
        return (await (await queue.getJob(jobId))?.getState()) === 'failed';
      });
      expect(endpoint.hits).to.equal(1);
      endpoint.up = true;

      await withPage(
        async (page) => {
          await page.goto(`${origin}/admin/queues/queue/merchant-webhooks?status=failed`);
          await page.getByText(jobId).first().waitFor({ timeout: 20_000 });
          await expectTranslated(page);
          // The job's action buttons are icons; the first one is Retry (its tooltip says so).
          const card = page
            .locator('div', { has: page.getByText(jobId) })
            .filter({ hasText: 'Failed at' })
            .last();
          const retry = card.locator('button:not([role])').first();
          await retry.hover();
          await page.getByText('Retry', { exact: true }).waitFor();
          await retry.click();
          await page.getByText('Are you sure that you want to retry this job?').waitFor();
          await page.getByRole('button', { name: 'Confirm', exact: true }).click();
          await page.getByText('No failed jobs in this queue.').waitFor();
        },
        { httpCredentials: { username: USER, password: PASSWORD } },
      );

      const row = await waitFor('the delivery delivered after the retry', async () => {
        const delivery = await deps.knex('merchant_webhook_deliveries').where('id', deliveryId!).first();
        return delivery.status === 'delivered' ? delivery : undefined;
      });
      expect(row.response_status).to.equal(200);
      expect(endpoint.hits).to.equal(2);
      expect(await (await queue.getJob(jobId))?.getState()).to.equal('completed');
    } finally {
      await workers.close(500);
      await endpoint.close();
    }
  });
});
