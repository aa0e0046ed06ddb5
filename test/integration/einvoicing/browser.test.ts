import { expect } from 'chai';
import jsQR from 'jsqr';
import type { Page } from 'playwright-core';
import { ORDER_STATUS, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { enableSimulation } from '../../../shared/services/einvoicing/settings';
import { merchantInvoice } from '../../../shared/services/invoices/read';
import { createOrderFromCheckout } from '../../../shared/services/orders/create-from-checkout';
import { withPage } from '../../helpers/browser';
import { renderPdf } from '../../helpers/pdf-render';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { tlvFields } from '../../helpers/einvoice-check';
import { startServer, type TestServer } from '../../helpers/http';

/**
 * The buyer's invoice page and its PDF link for a store in phase 2, in headless Chromium: the QR drawn on
 * the page reads back (jsQR, from the browser's pixels) as the phase-2 QR with tags 1 to 9.
 */
describe('e-invoicing: the buyer’s page carries the phase-2 QR (Chromium)', function () {
  this.timeout(90_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore({
      legal_name: 'شركة أكمي الرقمية',
      vat_number: '310122393500003',
      tax_mode: 'inclusive',
      tax_rate_bp: 1500,
    });
    await deps.knex.transaction((trx) => enableSimulation(trx, deps.cipher, store.id, new Date()));
  });
  after(() => server.close());

  async function readQr(page: Page): Promise<string | null> {
    const png = await page.locator('figure.qr svg').screenshot();
    const { width, height, pixels } = (await page.evaluate(`(async () => {
      const img = new Image();
      img.src = 'data:image/png;base64,${png.toString('base64')}';
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const g = canvas.getContext('2d');
      g.drawImage(img, 0, 0);
      return { width: img.width, height: img.height, pixels: Array.from(g.getImageData(0, 0, img.width, img.height).data) };
    })()`)) as { width: number; height: number; pixels: number[] };
    return jsQR(Uint8ClampedArray.from(pixels), width, height)?.data ?? null;
  }

  it('the QR on the page reads as the answer’s phase-2 qr', async () => {
    const product = await createProduct(store, { price_minor: 11_500 });
    const { checkout } = await insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 });
    const orderId = await deps.tx(
      async (uow) =>
        (await createOrderFromCheckout(uow, checkout.id, { status: ORDER_STATUS.IN_PROGRESS })).order.id,
    );
    const invoice = await merchantInvoice(
      deps.knex,
      { appSecret: deps.appSecret, publicBaseUrl: server.url },
      store.id,
      orderId,
    );
    expect([...tlvFields(invoice.qr).keys()]).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await withPage(async (page) => {
      await page.setViewportSize({ width: 900, height: 1100 });
      const answer = await page.goto(invoice.url);
      expect(answer?.status()).to.equal(200);
      expect(await readQr(page)).to.equal(invoice.qr);
      if (process.env.INVOICE_SCREENSHOTS !== '0')
        await page.screenshot({ path: '/tmp/invoice-phase2.png', fullPage: true });
    });
    // The PDF (rendered by PDF.js in Chromium): its QR, read from the drawn page, is the same phase-2 QR.
    const res = await fetch(`${invoice.url}/pdf`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    const scale = 3;
    await withPage(async (page) => {
      await page.setViewportSize({ width: 1800, height: 2600 });
      await renderPdf(page, pdf, scale);
      const box = { x: 390 * scale, y: 60 * scale, w: 200 * scale, h: 200 * scale };
      const { width, height, pixels } = (await page.evaluate(`(() => {
        const c = document.getElementById('page');
        const d = c.getContext('2d').getImageData(${box.x}, ${box.y}, ${box.w}, ${box.h});
        return { width: d.width, height: d.height, pixels: Array.from(d.data) };
      })()`)) as { width: number; height: number; pixels: number[] };
      expect(jsQR(Uint8ClampedArray.from(pixels), width, height)?.data).to.equal(invoice.qr);
    });
  });
});
