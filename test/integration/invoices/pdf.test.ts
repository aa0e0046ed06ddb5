import { expect } from 'chai';
import jsQR from 'jsqr';
import type { Page } from 'playwright-core';
import { withPage } from '../../helpers/browser';
import { renderPdf } from '../../helpers/pdf-render';
import { randomIp } from '../../helpers/otp';
import { usePaymentsSuite, waitFor } from '../payments/support';
import { merchantGet, onServer, payThroughSandbox, seedStore } from './support';

/**
 * The invoice PDF as a viewer shows it: rendered by PDF.js in Chromium, its QR read back from the pixels,
 * its text as a viewer's text layer holds it, and a PNG of the page in /tmp to look at (shaping and
 * right-to-left order are checked by eye there, and by the bidi unit tests).
 */
describe('tax invoices: the PDF', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();

  /** The QR in the page's top right corner (where the layout puts it), read from the drawn canvas. */
  async function canvasQr(page: Page, scale: number): Promise<string | null> {
    const box = { x: 390 * scale, y: 60 * scale, w: 200 * scale, h: 200 * scale };
    const { width, height, pixels } = (await page.evaluate(`(() => {
      const c = document.getElementById('page');
      const d = c.getContext('2d').getImageData(${box.x}, ${box.y}, ${box.w}, ${box.h});
      return { width: d.width, height: d.height, pixels: Array.from(d.data) };
    })()`)) as { width: number; height: number; pixels: number[] };
    return jsQR(Uint8ClampedArray.from(pixels), width, height)?.data ?? null;
  }

  async function download(url: string): Promise<Buffer> {
    const res = await fetch(onServer(suite, url), { headers: { 'X-Forwarded-For': randomIp() } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('content-disposition')).to.match(/^attachment; filename="[\w-]+\.pdf"$/);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
    return pdf;
  }

  it('renders the invoice with its QR, both languages, and the amounts', async () => {
    const seeded = await seedStore(
      suite,
      { legal_name: 'شركة أكمي الرقمية', vat_number: '310122393500003', address: 'الرياض، طريق الملك فهد' },
      { name: 'بطاقة شحن 100 ريال', price: '99.99' },
    );
    const orderId = await payThroughSandbox(suite, seeded, 2);
    const invoice = (await merchantGet(suite, seeded.token, `/shawarma/orders/${orderId}/invoice`)).body
      .data as { url: string; qr: string };
    const html = await (
      await fetch(onServer(suite, invoice.url), { headers: { 'X-Forwarded-For': randomIp() } })
    ).text();
    expect(html).to.contain(`href="${invoice.url}/pdf" download`);
    const pdf = await download(`${invoice.url}/pdf`);

    await withPage(async (page) => {
      await page.setViewportSize({ width: 1240, height: 1760 });
      const rendered = await renderPdf(page, pdf, 2);
      expect(rendered.pages).to.equal(1);
      expect(await canvasQr(page, 2)).to.equal(invoice.qr);
      for (const text of [
        'Simplified Tax Invoice',
        'Invoice number',
        '310122393500003',
        '199.98 SAR',
        '26.08 SAR',
        '173.90 SAR',
      ]) {
        expect(rendered.text).to.contain(text);
      }
      await page.locator('#page').screenshot({ path: '/tmp/invoice-pdf.png' });
    });
  });

  it('renders a credit note and a receipt', async () => {
    const seeded = await seedStore(suite, { legal_name: 'Acme Digital LLC', vat_number: '310122393500003' });
    const orderId = await payThroughSandbox(suite, seeded);
    await suite.server.request(`/shawarma/orders/${orderId}`, {
      method: 'PUT',
      json: { status: 6 },
      headers: { Authorization: `Bearer ${seeded.token}` },
    });
    const note = await waitFor('the credit note', async () => {
      const invoice = (await merchantGet(suite, seeded.token, `/shawarma/orders/${orderId}/invoice`)).body
        .data as { credit_notes: Array<{ url: string; qr: string }> };
      return invoice.credit_notes[0];
    });
    const notePdf = await download(`${note.url}/pdf`);
    await withPage(async (page) => {
      await page.setViewportSize({ width: 1240, height: 1760 });
      const rendered = await renderPdf(page, notePdf, 2);
      expect(await canvasQr(page, 2)).to.equal(note.qr);
      expect(rendered.text).to.contain('Credit Note').and.contain('115.00 SAR');
      await page.locator('#page').screenshot({ path: '/tmp/credit-note-pdf.png' });
    });

    const plain = await seedStore(suite);
    const plainOrder = await payThroughSandbox(suite, plain);
    const url = (
      (await merchantGet(suite, plain.token, `/shawarma/orders/${plainOrder}`)).body.data as {
        invoice_url: string;
      }
    ).invoice_url;
    const receipt = await download(`${url}/pdf`);
    await withPage(async (page) => {
      const rendered = await renderPdf(page, receipt, 1);
      expect(await canvasQr(page, 1)).to.equal(null);
      expect(rendered.text).to.contain('Receipt').and.contain('115.00 SAR').and.not.contain('VAT 15');
    });

    const forged = url.replace(/-[0-9a-f]{32}$/, `-${'0'.repeat(32)}`);
    const refused = await fetch(onServer(suite, `${forged}/pdf`), {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(refused.status).to.equal(404);
  });
});
