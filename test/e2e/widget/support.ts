import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { createApp } from '../../../api/app';
import { Coupon, Product, Store } from '../../../db/models';
import { buildWidget } from '../../../scripts/build-widget';
import type { Deps } from '../../../shared/deps';
import { WorkerPool } from '../../../workers/worker-pool';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { registryWith } from '../../integration/payments/support';
import { waitFor } from '../../integration/queues/support';
import { freePort } from '../support';

export { waitFor };

/**
 * The widget's browser tests run three things on loopback: the platform (the real app on its own port,
 * PUBLIC_BASE_URL pointing at it, with real BullMQ workers for OTP delivery and payments), and a merchant
 * site on another port, so the script and the Embed API are cross-origin as on a real shop.
 */
export interface WidgetWorld {
  deps: Deps;
  /** The platform's base address (PUBLIC_BASE_URL). */
  api: string;
  /** The merchant site's base address: another origin. */
  site: string;
  /** Serves `html` at `path` on the merchant site, with `headers`. */
  page(path: string, html: string, headers?: Record<string, string>): string;
  close(): Promise<void>;
}

export async function startWorld(): Promise<WidgetWorld> {
  await buildWidget();
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  // The browser makes every request from 127.0.0.1: the per-IP limits are tested elsewhere.
  const deps = await isolatedDeps({ PUBLIC_BASE_URL: api, RATE_LIMITS: 'off' });
  const platform = http.createServer(createApp(deps).callback());
  await new Promise<void>((resolve) => platform.listen(port, '127.0.0.1', resolve));
  const workers = await WorkerPool.start(deps, {
    registry: registryWith(),
    queues: ['otp', 'payments', 'fulfilment', 'licenses', 'messages'],
  });

  const pages = new Map<string, { html: string; headers: Record<string, string> }>();
  const merchant = http.createServer((req, res) => {
    const found = pages.get((req.url ?? '').split('?')[0]);
    if (!found) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...found.headers }).end(found.html);
  });
  await new Promise<void>((resolve) => merchant.listen(0, '127.0.0.1', resolve));
  const site = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;

  return {
    deps,
    api,
    site,
    page(path, html, headers = {}) {
      pages.set(path, { html, headers });
      return site + path;
    },
    async close() {
      await workers.close(1_000);
      for (const server of [platform, merchant]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/** The two lines a merchant pastes, inside a page of the given language. */
export function merchantPage(
  world: WidgetWorld,
  product: Product,
  store: Store,
  opts: { lang?: string; theme?: string; extra?: string } = {},
): string {
  const theme = opts.theme ? ` data-matjar-theme="${opts.theme}"` : '';
  return `<!doctype html><html lang="${opts.lang ?? 'en'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Merchant</title></head>
<body><h1>Merchant shop</h1><a href="#top">A link before the button</a>
<script src="${world.api}/widget/v1.js" async></script>
<button id="buy" data-matjar-product="${product.id}" data-matjar-key="${store.embed_key}"${theme}>Buy now</button>
${opts.extra ?? ''}</body></html>`;
}

/** A store with sandbox card and mada, bank transfer, and a code product with keys. */
export async function shop(deps: Deps, priceMinor = 5_500): Promise<{ store: Store; product: Product }> {
  const store = await createStore({ name: 'Widget Shop' });
  await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
  await createPaymentMethod(store, { method: 'mada', provider: 'sandbox' });
  await createPaymentMethod(store, {
    method: 'bank',
    provider: 'bank',
    settings: {
      bank_name: 'Shop Bank',
      account_name: 'Shop LLC',
      account_number: '0042',
      iban: 'SA4420000001234567891234',
    },
  });
  const product = await createProduct(store, {
    name: 'Steam Wallet 50',
    type: 'code',
    price_minor: priceMinor,
  });
  await deps
    .knex('product_codes')
    .insert(
      Array.from({ length: 5 }, (_, i) => ({ product_id: product.id, code: `STEAM-${product.id}-${i}` })),
    );
  return { store, product };
}

export async function coupon(store: Store, overrides: Partial<Coupon>): Promise<Coupon> {
  return Coupon.query().insertAndFetch({
    store_id: store.id,
    code: 'SAVE',
    type: 'percentage',
    amount: 1000,
    active: true,
    payment_restrictions: [],
    ...overrides,
  });
}

/** Records the widget's events on the page (page.evaluate runs outside the page's CSP). */
export async function recordEvents(page: Page): Promise<void> {
  await page.evaluate(`
    window.events = [];
    for (const name of ['matjar:open', 'matjar:close', 'matjar:paid']) {
      document.addEventListener(name, (e) => window.events.push([name, e.detail]));
    }
  `);
}

export async function events(page: Page): Promise<[string, Record<string, unknown>][]> {
  return page.evaluate('window.events');
}

/** Opens the widget from the merchant page once the script has enhanced the button. */
export async function openWidget(page: Page): Promise<void> {
  await page.locator('#buy[aria-haspopup=dialog]').waitFor();
  await page.locator('#buy').click();
  await page.getByRole('dialog').waitFor();
}

/** In the provider's window: the platform's payment page forwards to the sandbox, where Pay is pressed. */
export async function payInPopup(popup: Page): Promise<void> {
  await popup.getByRole('button', { name: 'Pay', exact: true }).click({ timeout: 20_000 });
}

/** The order id the dialog shows after payment. */
export async function shownOrderId(page: Page): Promise<number> {
  const text = await page.locator('[data-order-id]').textContent({ timeout: 45_000 });
  return Number(text);
}

export async function orderIdFor(deps: Deps, productId: number): Promise<number[]> {
  const rows = await deps
    .knex('orders as o')
    .join('order_items as i', 'i.order_id', 'o.id')
    .where('i.product_id', productId)
    .orderBy('o.id')
    .pluck<number[]>('o.id');
  return rows;
}
