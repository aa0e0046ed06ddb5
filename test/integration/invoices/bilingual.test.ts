import { expect } from 'chai';
import { withPage } from '../../helpers/browser';
import { renderPdf } from '../../helpers/pdf-render';
import { randomIp } from '../../helpers/otp';
import { usePaymentsSuite } from '../payments/support';
import { merchantGet, onServer, payThroughSandbox, seedStore } from './support';

/**
 * The bilingual catalogue on invoices and receipts (docs/store-pages.md): a line names the product in both
 * languages, the English name and, on the Arabic side, its name_ar; a product without one shows its name only.
 */
describe('tax invoices: product names in Arabic and English', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();

  const page = async (url: string): Promise<string> => {
    const res = await fetch(onServer(suite, url), { headers: { 'X-Forwarded-For': randomIp() } });
    expect(res.status).to.equal(200);
    return res.text();
  };

  it('an invoice line shows name and name_ar on the page and in the PDF, kept as issued', async () => {
    const seeded = await seedStore(
      suite,
      { legal_name: 'Acme Digital LLC', vat_number: '310122393500003' },
      { name: 'Gift Card 100', name_ar: 'بطاقة هدية' },
    );
    const orderId = await payThroughSandbox(suite, seeded);
    const invoice = (await merchantGet(suite, seeded.token, `/shawarma/orders/${orderId}/invoice`)).body
      .data as { url: string };
    const html = await page(invoice.url);
    expect(html).to.contain('<bdi>Gift Card 100</bdi>');
    expect(html).to.contain('<bdi lang="ar" dir="rtl" class="ar" data-name-ar>بطاقة هدية</bdi>');

    // An issued invoice never changes: renaming the product afterwards leaves the line as it was issued.
    await suite.deps.knex('products').where({ id: seeded.productId }).update({ name_ar: 'اسم جديد' });
    const again = await page(invoice.url);
    expect(again).to.contain('بطاقة هدية').and.not.contain('اسم جديد');

    const res = await fetch(onServer(suite, `${invoice.url}/pdf`), {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(res.status).to.equal(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    await withPage(async (p) => {
      await p.setViewportSize({ width: 1240, height: 1760 });
      const rendered = await renderPdf(p, pdf, 2);
      expect(rendered.text).to.contain('Gift Card 100');
      // The Arabic side is drawn a word at a time (pdf.ts): each word is in the text layer.
      for (const word of ['بطاقة', 'هدية']) expect(rendered.text.normalize('NFKC')).to.contain(word);
    });
  });

  it('a receipt (no VAT number) names the line in both languages; without name_ar only the name', async () => {
    const withAr = await seedStore(suite, {}, { name: 'Skin Pack', name_ar: 'حزمة أشكال' });
    const id = await payThroughSandbox(suite, withAr);
    const detail = await merchantGet(suite, withAr.token, `/shawarma/orders/${id}`);
    const html = await page((detail.body.data as { invoice_url: string }).invoice_url);
    expect(html).to.contain('Receipt');
    expect(html).to.contain('<bdi>Skin Pack</bdi>');
    expect(html).to.contain('data-name-ar>حزمة أشكال</bdi>');

    const plain = await seedStore(suite, {}, { name: 'Plain Item' });
    const plainId = await payThroughSandbox(suite, plain);
    const plainDetail = await merchantGet(suite, plain.token, `/shawarma/orders/${plainId}`);
    const plainHtml = await page((plainDetail.body.data as { invoice_url: string }).invoice_url);
    expect(plainHtml).to.contain('<bdi>Plain Item</bdi>').and.not.contain('data-name-ar');
  });
});
