import { expect } from 'chai';
import http from 'node:http';
import { createApp } from '../../../api/app';
import type { Deps } from '../../../shared/deps';
import { loadFixture } from '../../../shared/services/seed';
import type { WorkerPool } from '../../../workers/worker-pool';
import type { Page } from 'playwright-core';
import { newPage, withPage } from '../../helpers/browser';
import { isolatedDeps } from '../../helpers/deps';
import { startWorkers, waitFor } from '../../integration/payments/support';
import { freePort } from '../support';

/**
 * The store page checkout's success page shows the goods to the browser that paid (docs/store-pages.md,
 * "The hosted checkout"; shared/services/reveal): a real browser buys a code product from its product page
 * through the sandbox and reads its key on the success page; another browser at the same address sees the
 * order's page without the key; after a refund the first browser no longer sees it either.
 */
describe('store pages: the goods on the success page, to the browser that paid', function () {
  this.timeout(90_000);
  let deps: Deps;
  let server: http.Server;
  let workers: WorkerPool;
  let base: string;
  const TOKEN = 'mt_w42_reveal_secret_0001';

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({ PUBLIC_BASE_URL: base, TRUST_PROXY: '1' });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    workers = await startWorkers(deps);
    await loadFixture(deps, {
      stores: [
        {
          ref: 'w42-reveal',
          slug: 'w42-reveal',
          name: 'Reveal w42',
          currency: 'SAR',
          plan: 'paid',
          merchant_tokens: [TOKEN],
          payment_methods: { card: { provider: 'sandbox' } },
          products: [
            {
              ref: 'key',
              name: 'Game key',
              slug: 'game-key',
              type: 'code',
              price: '25.00',
              codes: ['W42-KEY-0001', 'W42-KEY-0002'],
            },
          ],
        },
      ],
    });
  });

  after(async () => {
    await workers?.close(1_000);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('shows the key to the paying browser only, and to nobody after a refund', async () => {
    const outside: string[] = [];
    const buyer: Page = await newPage({ javaScriptEnabled: false });
    try {
      await buyThenRefund(buyer, outside);
    } finally {
      await buyer.context().close();
    }
  });

  async function buyThenRefund(buyer: Page, outside: string[]): Promise<void> {
    const paid = await (async (page: Page) => {
      page.on('request', (request) => {
        if (!request.url().startsWith(base)) outside.push(request.url());
      });
      await page.goto(`${base}/s/w42-reveal/p/game-key?lang=en`);
      await page.getByRole('link', { name: 'Buy now' }).click();
      await page.waitForURL(/\/s\/w42-reveal\/checkout\/game-key/);
      await page.getByLabel('First name').fill('Maha');
      await page.getByLabel('Last name').fill('Saad');
      await page.getByLabel('E-mail').fill('maha@w42.test');
      await page.getByLabel('Mobile number').fill('594800101');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.waitForURL(/\/pay\/payments\//);
      await page.getByRole('button', { name: 'Pay', exact: true }).click();
      await page.locator('[data-order-id]').waitFor({ timeout: 20_000 });
      // The key is shown at once, or after a reload while the delivery is still being made.
      const key = await waitFor('the key on the success page', async () => {
        const shown = await page.locator('[data-key]').allInnerTexts();
        if (shown.length > 0) return shown;
        await page.reload();
        return undefined;
      });
      return {
        url: page.url().replace(/\?.*$/, ''),
        key,
        sentTo: await page.locator('[data-sent-to]').allInnerTexts(),
        orderId: Number(await page.locator('[data-order-id]').getAttribute('data-order-id')),
      };
    })(buyer);
    const sold = await deps
      .knex('product_codes')
      .join('order_items', 'order_items.id', 'product_codes.order_item_id')
      .where('order_items.order_id', paid.orderId)
      .select('product_codes.code');
    expect(sold.map((s) => s.code)).to.have.length(1);
    expect(paid.key).to.deep.equal([sold[0]!.code]);
    expect(paid.sentTo.join(' ')).to.contain('101').and.to.contain('@w42.test').and.not.contain('maha@');

    // Another browser with the same success address: the order's page, never the key.
    const stranger = await withPage(async (page) => {
      const res = await page.goto(paid.url);
      return {
        status: res?.status(),
        text: await page.locator('main').innerText(),
        keys: await page.locator('[data-key], [data-goods]').count(),
      };
    });
    expect(stranger.status).to.equal(200);
    expect(stranger.keys).to.equal(0);
    expect(stranger.text).to.not.contain(sold[0]!.code);

    // Refunded: the paying browser's own page stops showing the key.
    const refund = await fetch(`${base}/shawarma/orders/${paid.orderId}/refunds`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({}),
    });
    expect(refund.status, await refund.text()).to.be.oneOf([200, 201, 202]);
    await waitFor('the refund', async () => {
      const order = await deps.knex('orders').where('id', paid.orderId).first('status');
      return order.status === 6 ? true : undefined;
    });
    await buyer.goto(paid.url);
    expect(await buyer.locator('[data-key], [data-goods]').count()).to.equal(0);
    expect(await buyer.locator('main').innerText()).to.not.contain(sold[0]!.code);
    expect(outside).to.deep.equal([]);
  }
});
