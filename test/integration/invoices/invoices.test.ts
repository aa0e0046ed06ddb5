import { expect } from 'chai';
import { Order } from '../../../db/models';
import { ORDER_STATUS } from '../../../db/models';
import { creditRefund } from '../../../shared/services/invoices/credit-notes';
import { decodeWithDataView, decodeWithPython } from '../../helpers/zatca-qr';
import { randomIp } from '../../helpers/otp';
import { PaymentPageRefs } from '../../../shared/services/payments/page-ref';
import { guestInitiate, usePaymentsSuite, waitFor } from '../payments/support';
import { merchantGet, onServer, payThroughSandbox, SeededStore, seedStore } from './support';

/**
 * Tax invoices as the operator contract (docs/operations.md) pins them, driven as outside tooling does: a
 * fixture store with `legal_name` and `vat_number`, an order paid through the sandbox, then
 * GET /shawarma/orders/{id}/invoice, its QR decoded, and its `url` opened without a login.
 */
describe('tax invoices: the Merchant API and the buyer page', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let vat: SeededStore;
  let orderId: number;

  before(async () => {
    vat = await seedStore(suite, {
      legal_name: 'شركة أكمي الرقمية',
      vat_number: '310122393500003',
      address: 'Riyadh, King Fahd Road',
    });
    orderId = await payThroughSandbox(suite, vat);
  });

  /** The payment's page once paid: the success page the buyer lands on. */
  const successPage = async (id: number): Promise<string> => {
    const payment = (await suite.deps
      .knex('orders')
      .where('orders.id', id)
      .join('payments', 'payments.id', 'orders.payment_id')
      .first('payments.id')) as { id: number };
    const ref = new PaymentPageRefs(suite.deps.appSecret).ref(Number(payment.id));
    const res = await fetch(`${suite.server.url}/pay/payments/${ref}`, {
      headers: { 'X-Forwarded-For': randomIp(), 'Accept-Language': 'en' },
    });
    return res.text();
  };

  const invoiceOf = async (seeded: SeededStore, id: number): Promise<Record<string, unknown>> => {
    const res = await merchantGet(suite, seeded.token, `/shawarma/orders/${id}/invoice`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as Record<string, unknown>;
  };

  it('a paid order has an invoice whose QR decodes (two decoders) to its own fields', async () => {
    const invoice = await invoiceOf(vat, orderId);
    expect(invoice.number).to.equal(1);
    expect(invoice.seller_name).to.equal('شركة أكمي الرقمية');
    expect(invoice.vat_number).to.equal('310122393500003');
    expect(invoice.total).to.equal('115.00');
    expect(invoice.vat).to.equal('15.00');
    expect(invoice.total_excl_vat).to.equal('100.00');
    expect(invoice.issued_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const expected = [
      { tag: 1, value: 'شركة أكمي الرقمية', length: Buffer.byteLength('شركة أكمي الرقمية') },
      { tag: 2, value: '310122393500003', length: 15 },
      { tag: 3, value: invoice.issued_at, length: 20 },
      { tag: 4, value: '115.00', length: 6 },
      { tag: 5, value: '15.00', length: 5 },
    ];
    expect(decodeWithDataView(invoice.qr as string)).to.deep.equal(expected);
    expect(decodeWithPython(invoice.qr as string)).to.deep.equal(expected);

    // The order keeps the split it was sold with; the spec's amounts are unchanged (VAT-inclusive).
    const order = await Order.query(suite.deps.knex).findById(orderId);
    expect([order!.total_minor, order!.tax_minor, order!.tax_rate_bp].map(Number)).to.deep.equal([
      11_500, 1_500, 1_500,
    ]);
    const detail = await merchantGet(suite, vat.token, `/shawarma/orders/${orderId}`);
    expect((detail.body.data as { total: string }).total).to.equal('115.00');
    expect((detail.body.data as { invoice_url: string }).invoice_url).to.equal(invoice.url);
  });

  it('the url is the buyer’s page, in Arabic and English, with the QR and the VAT split, no login', async () => {
    const invoice = await invoiceOf(vat, orderId);
    const url = invoice.url as string;
    expect(url.startsWith(`${suite.deps.config.publicBaseUrl}/invoices/`)).to.equal(true);
    const res = await fetch(onServer(suite, url), { headers: { 'X-Forwarded-For': randomIp() } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    const html = await res.text();
    expect(html).to.contain('Simplified Tax Invoice').and.contain('فاتورة ضريبية مبسطة');
    expect(html).to.contain('VAT registration number').and.contain('الرقم الضريبي');
    expect(html).to.contain('310122393500003').and.contain('شركة أكمي الرقمية');
    expect(html).to.match(/<svg role="img" aria-label="ZATCA QR code"/);
    expect(html).to.contain('E-book');
    expect(html).to.match(/data-total="Total excluding VAT">100\.00 SAR</);
    expect(html).to.match(/data-total="VAT 15\.00%">15\.00 SAR</);
    expect(html).to.match(/data-total="Total including VAT">115\.00 SAR</);

    // Another order's id with this signature, or a forged signature: not found.
    const forged = url.replace(/\/invoices\/(\d+)-/, (_m, id: string) => `/invoices/${Number(id) + 1}-`);
    expect(
      (await fetch(onServer(suite, forged), { headers: { 'X-Forwarded-For': randomIp() } })).status,
    ).to.equal(404);
  });

  it('the payment success page and the delivery message link to the invoice', async () => {
    const invoice = await invoiceOf(vat, orderId);
    const page = await successPage(orderId);
    expect(page).to.contain(`href="${invoice.url as string}" data-invoice-link>View your invoice<`);

    // A code key's delivery message carries the link too.
    const codes = await seedStore(
      suite,
      { legal_name: 'Keys LLC', vat_number: '300000000000003' },
      { type: 'code', codes: ['KEY-TAX-0001'] },
    );
    const keyOrder = await payThroughSandbox(suite, codes);
    const keyInvoice = await invoiceOf(codes, keyOrder);
    const message = await waitFor(
      'the delivery message',
      async () =>
        (await suite.deps.knex('outbound_messages').where('body', 'like', '%KEY-TAX-0001%').first('body')) as
          { body: string } | undefined,
    );
    expect(message.body).to.contain(`Tax invoice / الفاتورة الضريبية: ${keyInvoice.url as string}`);
  });

  it('404 in the Merchant envelope: an unpaid order, another store’s order, a store without a VAT number', async () => {
    const unpaid = await Order.query(suite.deps.knex).insertAndFetch({
      store_id: vat.store.id,
      status: ORDER_STATUS.AWAITING_PAYMENT,
      customer_first_name: 'A',
      customer_last_name: 'B',
      customer_email: 'a@example.com',
      customer_country_code: '966',
      customer_phone: '500000000',
      subtotal_minor: 11_500,
      total_minor: 11_500,
      currency: 'SAR',
    });
    const other = await seedStore(suite, { legal_name: 'Other Co', vat_number: '300000000000003' });
    const plain = await seedStore(suite);
    const plainOrder = await payThroughSandbox(suite, plain);
    for (const [seeded, id] of [
      [vat, unpaid.id],
      [other, orderId],
      [plain, plainOrder],
    ] as const) {
      const res = await merchantGet(suite, seeded.token, `/shawarma/orders/${id}/invoice`);
      expect(res.status, res.text).to.equal(404);
      expect(res.body).to.include({ error: true, api: 'merchant', message: 'Invoice not found' });
    }
    const [{ count }] = await suite.deps.knex('invoices').where({ store_id: plain.store.id }).count();
    expect(Number(count)).to.equal(0);
  });

  it('a bank transfer: no invoice while under review; confirmed by the merchant, invoiced in that change', async () => {
    const bank = await seedStore(suite, {
      legal_name: 'Bank Buyers LLC',
      vat_number: '300000000000003',
      payment_methods: {
        bank: {
          bank_name: 'Acme Bank',
          account_name: 'Acme LLC',
          account_number: '0001',
          iban: 'SA0000000000000000000001',
        },
      },
    });
    const checkout = await suite.server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: {
        product_id: bank.productId,
        quantity: 1,
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_phone: '500009002',
        customer_country_code: '966',
      },
      headers: { 'X-Embed-Key': bank.store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    const checkoutUrl = (checkout.body.data as { checkout_url: string }).checkout_url;
    const initiated = await guestInitiate(suite.server, bank.store, checkoutUrl, 'bank');
    expect(initiated.status, initiated.text).to.equal(200);
    const order = await Order.query(suite.deps.knex).where({ store_id: bank.store.id }).first();
    expect(order!.status).to.equal(ORDER_STATUS.UNDER_REVIEW);
    const before = await merchantGet(suite, bank.token, `/shawarma/orders/${order!.id}/invoice`);
    expect(before.status).to.equal(404);
    expect((await merchantGet(suite, bank.token, `/shawarma/orders/${order!.id}`)).body.data).to.include({
      invoice_url: null,
    });

    const confirmed = await suite.server.request(`/shawarma/orders/${order!.id}`, {
      method: 'PUT',
      json: { status: 3 },
      headers: { Authorization: `Bearer ${bank.token}` },
    });
    expect(confirmed.status, confirmed.text).to.equal(200);
    const invoice = await invoiceOf(bank, order!.id);
    expect(invoice).to.include({ number: 1, total: '115.00', vat: '15.00', seller_name: 'Bank Buyers LLC' });
  });

  it('a store without a VAT number gets a receipt on the same page: no QR, no VAT line', async () => {
    const plain = await seedStore(suite);
    const id = await payThroughSandbox(suite, plain);
    const detail = await merchantGet(suite, plain.token, `/shawarma/orders/${id}`);
    const url = (detail.body.data as { invoice_url: string }).invoice_url;
    const html = await (
      await fetch(onServer(suite, url), { headers: { 'X-Forwarded-For': randomIp() } })
    ).text();
    expect(html).to.contain('Receipt').and.contain('إيصال');
    expect(html).to.not.contain('<svg');
    expect(html).to.not.contain('VAT 15');
    expect(html).to.not.contain('Tax Invoice');
    expect(html).to.match(/data-total="Total">115\.00 SAR</);
    expect(await successPage(id)).to.contain(`href="${url}" data-invoice-link>View your receipt<`);
  });

  it('a full refund (status 6) issues a credit note with its own number series and QR', async () => {
    const second = await payThroughSandbox(suite, vat);
    const refunded = await suite.server.request(`/shawarma/orders/${second}`, {
      method: 'PUT',
      json: { status: 6 },
      headers: { Authorization: `Bearer ${vat.token}` },
    });
    expect(refunded.status, refunded.text).to.equal(200);
    // The sandbox returns the money through the payments worker; the note is issued once it has.
    const invoice = await waitFor('the credit note of the refund', async () => {
      const current = await invoiceOf(vat, second);
      return (current.credit_notes as unknown[]).length > 0 ? current : undefined;
    });
    const notes = invoice.credit_notes as Array<Record<string, unknown>>;
    expect(notes).to.have.length(1);
    expect(notes[0]).to.include({ number: 1, total: '115.00', vat: '15.00', total_excl_vat: '100.00' });
    expect(decodeWithPython(notes[0]!.qr as string).map((f) => f.value)).to.deep.equal([
      'شركة أكمي الرقمية',
      '310122393500003',
      notes[0]!.issued_at,
      '115.00',
      '15.00',
    ]);
    const page = await fetch(onServer(suite, notes[0]!.url as string), {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    const html = await page.text();
    expect(page.status).to.equal(200);
    expect(html).to.contain('Credit Note').and.contain('إشعار دائن').and.contain('<svg');
    expect(html).to.contain(`${invoice.number as number} (${invoice.issued_at as string})`);
  });

  it('partial refunds through the refunds API: a credit note each, VAT at the invoice’s rate, summing to it', async () => {
    const id = await payThroughSandbox(suite, vat);
    const refund = (json: unknown) =>
      suite.server.request(`/shawarma/orders/${id}/refunds`, {
        method: 'POST',
        json,
        headers: { Authorization: `Bearer ${vat.token}` },
      });
    const first = await refund({ amount: '40.00', reason: 'One item returned' });
    expect(first.status, first.text).to.be.oneOf([200, 201, 202]);
    const notesOf = async (count: number) =>
      waitFor(`${count} credit notes`, async () => {
        const notes = (await invoiceOf(vat, id)).credit_notes as Array<{
          number: number;
          total: string;
          vat: string;
          reason: string;
        }>;
        return notes.length === count ? notes : undefined;
      });
    expect((await notesOf(1)).map((n) => [n.total, n.vat, n.reason])).to.deep.equal([
      ['40.00', '5.22', 'One item returned'],
    ]);
    // The rest, by the status change: the note credits exactly what is left, VAT included.
    const res = await suite.server.request(`/shawarma/orders/${id}`, {
      method: 'PUT',
      json: { status: 6 },
      headers: { Authorization: `Bearer ${vat.token}` },
    });
    expect(res.status, res.text).to.equal(200);
    const notes = await notesOf(2);
    expect(notes.map((n) => [n.total, n.vat])).to.deep.equal([
      ['40.00', '5.22'],
      ['75.00', '9.78'],
    ]);
    expect(notes[1]!.number).to.equal(notes[0]!.number + 1);
  });

  it('issueCreditNote refuses to credit past the invoice (a caller with its own refund records)', async () => {
    const id = await payThroughSandbox(suite, vat);
    const first = await creditRefund(suite.deps.knex, {
      orderId: id,
      amountMinor: 4_000,
      reason: 'Partial',
      refundKey: 'r1',
    });
    expect(first).to.include({ total_minor: 4_000, vat_minor: 522, created: true });
    const again = await creditRefund(suite.deps.knex, {
      orderId: id,
      amountMinor: 4_000,
      reason: 'Partial',
      refundKey: 'r1',
    });
    expect(again).to.include({ id: first!.id, created: false });
    let refused: unknown = null;
    try {
      await creditRefund(suite.deps.knex, {
        orderId: id,
        amountMinor: 7_501,
        reason: 'Too much',
        refundKey: 'r2',
      });
    } catch (err) {
      refused = err;
    }
    expect((refused as Error).message).to.equal('Only 75.00 SAR of this invoice is left to refund.');
  });

  it('VAT settings: strict ZATCA form on the Merchant API; a change never rewrites a past invoice', async () => {
    const seeded = await seedStore(suite, { legal_name: 'Before LLC', vat_number: '300000000000003' });
    const id = await payThroughSandbox(suite, seeded);
    const put = (json: unknown) =>
      suite.server.request('/shawarma/store/tax', {
        method: 'PUT',
        json,
        headers: { Authorization: `Bearer ${seeded.token}` },
      });
    const bad = await put({ vat_number: '123456789012345' });
    expect(bad.status).to.equal(422);
    expect(bad.text).to.contain('vat_number');
    const ok = await put({ legal_name: 'After LLC', vat_number: '399999999999993' });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.data).to.deep.equal({
      legal_name: 'After LLC',
      vat_number: '399999999999993',
      address: null,
      issues_invoices: true,
      prices_include_vat: true,
      vat_rate: '15.00',
    });
    const read = await merchantGet(suite, seeded.token, '/shawarma/store/tax');
    expect((read.body.data as { legal_name: string }).legal_name).to.equal('After LLC');
    const invoice = await invoiceOf(seeded, id);
    expect([invoice.seller_name, invoice.vat_number]).to.deep.equal(['Before LLC', '300000000000003']);
    // The table refuses edits outright.
    let refused: unknown = null;
    try {
      await suite.deps.knex('invoices').where({ order_id: id }).update({ seller_name: 'Edited' });
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).to.contain('never edited');
  });

  it('a 3-decimal currency: amounts exact to the fils', async () => {
    const kwd = await seedStore(
      suite,
      { currency: 'KWD', legal_name: 'Kuwait Co', vat_number: '300000000000003' },
      { price: '1.001' },
    );
    const id = await payThroughSandbox(suite, kwd);
    const invoice = await invoiceOf(kwd, id);
    // 1001 minor units of KWD are 1.001 KWD; VAT = 1001 - round(1001 / 1.15) = 131.
    expect([invoice.currency, invoice.total, invoice.vat, invoice.total_excl_vat]).to.deep.equal([
      'KWD',
      '1.001',
      '0.131',
      '0.870',
    ]);
    expect(
      decodeWithDataView(invoice.qr as string)
        .slice(3)
        .map((f) => f.value),
    ).to.deep.equal(['1.001', '0.131']);
  });
});
