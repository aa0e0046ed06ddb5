import { expect } from 'chai';
import jsQR from 'jsqr';
import type { Page } from 'playwright-core';
import { withPage } from '../../helpers/browser';
import { usePaymentsSuite, waitFor } from '../payments/support';
import { merchantGet, onServer, payThroughSandbox, seedStore } from './support';

/**
 * The buyer's invoice page in a real browser (headless Chromium): both languages side by side, the QR
 * code as an image that a QR reader decodes to the API's `qr`, and the totals. Screenshots are written to
 * /tmp for a person to look at (INVOICE_SCREENSHOTS=0 skips writing them).
 */
describe('tax invoices: the buyer page in Chromium', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();

  /** The QR on the page, read back from the pixels the browser drew. */
  async function readQr(page: Page): Promise<string | null> {
    const png = await page.locator('figure.qr svg').screenshot();
    // Decoded by the browser itself (a canvas), so the test needs no PNG library; the source is a string
    // because this file is compiled without the DOM's types.
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

  const shoot = async (page: Page, name: string): Promise<void> => {
    if (process.env.INVOICE_SCREENSHOTS === '0') return;
    await page.screenshot({ path: `/tmp/${name}.png`, fullPage: true });
  };

  it('shows the invoice in Arabic and English side by side, with a QR that reads as the API’s qr', async () => {
    const seeded = await seedStore(
      suite,
      {
        legal_name: 'شركة أكمي الرقمية للتجارة',
        vat_number: '310122393500003',
        address: 'الرياض، طريق الملك فهد',
      },
      { name: 'بطاقة شحن 100 ريال', price: '99.99' },
    );
    const orderId = await payThroughSandbox(suite, seeded, 2);
    const res = await merchantGet(suite, seeded.token, `/shawarma/orders/${orderId}/invoice`);
    const invoice = res.body.data as { qr: string; url: string; total: string; vat: string };
    expect([invoice.total, invoice.vat]).to.deep.equal(['199.98', '26.08']);

    await withPage(async (page) => {
      await page.setViewportSize({ width: 900, height: 900 });
      const answer = await page.goto(onServer(suite, invoice.url));
      expect(answer?.status()).to.equal(200);
      expect(await readQr(page)).to.equal(invoice.qr);

      // English labels on the left, Arabic on the right, of every row of the header.
      const row = page.locator('table.meta tr').filter({ hasText: 'VAT registration number' });
      const en = await row.locator('th[lang=en]').boundingBox();
      const ar = await row.locator('th[lang=ar]').boundingBox();
      expect(en!.x + en!.width).to.be.below(ar!.x);
      expect(await row.locator('th[lang=ar]').innerText()).to.equal('الرقم الضريبي');
      expect(await page.locator('h1 [lang=en]').innerText()).to.equal('Simplified Tax Invoice');
      expect(await page.locator('h1 [lang=ar]').innerText()).to.equal('فاتورة ضريبية مبسطة');
      expect(await page.locator('[data-total="Total including VAT"]').innerText()).to.equal('199.98 SAR');
      expect(await page.locator('[data-total="VAT 15.00%"]').innerText()).to.equal('26.08 SAR');
      expect(await page.locator('table.lines tbody tr').innerText()).to.contain('بطاقة شحن 100 ريال');
      await shoot(page, 'invoice-sar');
    });

    // Its credit note, after a refund, with its own QR.
    const refund = await suite.server.request(`/shawarma/orders/${orderId}`, {
      method: 'PUT',
      json: { status: 6 },
      headers: { Authorization: `Bearer ${seeded.token}` },
    });
    expect(refund.status, refund.text).to.equal(200);
    // Issued once the sandbox has returned the money (the payments worker).
    const note = await waitFor('the credit note', async () => {
      const after = await merchantGet(suite, seeded.token, `/shawarma/orders/${orderId}/invoice`);
      return (after.body.data as { credit_notes: Array<{ qr: string; url: string }> }).credit_notes[0];
    });
    await withPage(async (page) => {
      await page.setViewportSize({ width: 900, height: 900 });
      await page.goto(onServer(suite, note.url));
      expect(await readQr(page)).to.equal(note.qr);
      expect(await page.locator('h1 [lang=ar]').innerText()).to.equal('إشعار دائن');
      await shoot(page, 'credit-note-sar');
    });
  });

  it('a 3-decimal currency, and a receipt without QR or VAT for a store without a VAT number', async () => {
    const kwd = await seedStore(
      suite,
      { currency: 'KWD', legal_name: 'Gulf Keys Co', vat_number: '300000000000003' },
      { price: '1.234' },
    );
    const kwdOrder = await payThroughSandbox(suite, kwd);
    const kwdInvoice = (await merchantGet(suite, kwd.token, `/shawarma/orders/${kwdOrder}/invoice`)).body
      .data as { url: string; qr: string };
    await withPage(async (page) => {
      await page.setViewportSize({ width: 900, height: 900 });
      await page.goto(onServer(suite, kwdInvoice.url));
      expect(await readQr(page)).to.equal(kwdInvoice.qr);
      // 1234 fils: 1.073 net, 0.161 VAT.
      expect(await page.locator('[data-total="Total including VAT"]').innerText()).to.equal('1.234 KWD');
      expect(await page.locator('[data-total="VAT 15.00%"]').innerText()).to.equal('0.161 KWD');
      expect(await page.locator('[data-total="Total excluding VAT"]').innerText()).to.equal('1.073 KWD');
      await shoot(page, 'invoice-kwd');
    });

    const plain = await seedStore(suite);
    const plainOrder = await payThroughSandbox(suite, plain);
    const detail = await merchantGet(suite, plain.token, `/shawarma/orders/${plainOrder}`);
    await withPage(async (page) => {
      await page.setViewportSize({ width: 900, height: 700 });
      await page.goto(onServer(suite, (detail.body.data as { invoice_url: string }).invoice_url));
      expect(await page.locator('h1 [lang=en]').innerText()).to.equal('Receipt');
      expect(await page.locator('svg').count()).to.equal(0);
      expect(await page.locator('[data-total^="VAT"]').count()).to.equal(0);
      expect(await page.locator('[data-total="Total"]').innerText()).to.equal('115.00 SAR');
      await shoot(page, 'receipt-plain');
    });
  });
});
