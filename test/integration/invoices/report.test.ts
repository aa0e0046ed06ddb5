import { expect } from 'chai';
import { FixtureError, loadFixture } from '../../../shared/services/seed';
import { creditRefund } from '../../../shared/services/invoices/credit-notes';
import { monthCsv } from '../../../shared/services/invoices/report';
import { usePaymentsSuite } from '../payments/support';
import { merchantGet, payThroughSandbox, SeededStore, seedStore } from './support';

/** What an accountant asks for: the month's invoices and credit notes, as a list and as CSV. */
describe('tax invoices: the month for the accountant', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let seeded: SeededStore;
  let month: string;
  const orders: number[] = [];

  before(async () => {
    seeded = await seedStore(suite, { legal_name: 'Acme, "Digital" LLC', vat_number: '310122393500003' });
    orders.push(await payThroughSandbox(suite, seeded), await payThroughSandbox(suite, seeded, 2));
    await creditRefund(suite.deps.knex, {
      orderId: orders[1]!,
      amountMinor: 5_750,
      reason: 'Returned, one of two',
      refundKey: 'refund-1',
    });
    // The month in Saudi time, as the report counts it.
    month = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 7);
  });

  it('lists the month’s invoices and credit notes, credit notes negative, with the month’s totals', async () => {
    const res = await merchantGet(suite, seeded.token, `/shawarma/invoices?month=${month}`);
    expect(res.status, res.text).to.equal(200);
    const data = res.body.data as {
      month: string;
      totals: unknown[];
      data: Array<Record<string, unknown>>;
      meta: { total: number };
    };
    expect(data.month).to.equal(month);
    expect(data.meta.total).to.equal(3);
    expect(
      data.data.map((d) => [d.type, d.number, d.order_id, d.total, d.vat, d.total_excl_vat]),
    ).to.deep.equal([
      ['invoice', 1, orders[0], '115.00', '15.00', '100.00'],
      ['invoice', 2, orders[1], '230.00', '30.00', '200.00'],
      ['credit_note', 1, orders[1], '-57.50', '-7.50', '-50.00'],
    ]);
    expect(data.data[2]!.invoice_number).to.equal(2);
    expect(data.totals).to.deep.equal([
      {
        currency: 'SAR',
        invoices: 2,
        credit_notes: 1,
        total_excl_vat: '250.00',
        vat: '37.50',
        total: '287.50',
      },
    ]);

    const other = await merchantGet(suite, seeded.token, '/shawarma/invoices?month=2020-01');
    expect((other.body.data as { meta: { total: number } }).meta.total).to.equal(0);
    const bad = await merchantGet(suite, seeded.token, '/shawarma/invoices?month=2026-13');
    expect(bad.status).to.equal(422);
    expect(bad.text).to.contain('month');
  });

  it('exports the month as CSV', async () => {
    const res = await merchantGet(suite, seeded.token, `/shawarma/invoices/export?month=${month}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).to.contain(
      `tax-documents-${seeded.store.id}-${month}.csv`,
    );
    const lines = res.text.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).to.equal(
      'type,number,issued_at,order_id,invoice_number,currency,total_excl_vat,vat,total,reason,url,hash,reporting_status',
    );
    const rows = lines.slice(1, -1).map((l) => l.split(','));
    expect(lines.at(-1)).to.equal('');
    expect(rows.map((r) => [r[0], r[1], r[3], r[4], r[6], r[7], r[8]])).to.deep.equal([
      ['invoice', '1', String(orders[0]), '1', '100.00', '15.00', '115.00'],
      ['invoice', '2', String(orders[1]), '2', '200.00', '30.00', '230.00'],
      ['credit_note', '1', String(orders[1]), '2', '-50.00', '-7.50', '-57.50'],
    ]);
    expect(rows[2]![9]).to.equal('"Returned');
    expect(lines[3]).to.contain('"Returned, one of two"');
    expect(lines[3]).to.match(/,http:\/\/[^,]+\/invoices\/\d+-[0-9a-f]{32}\/credit-notes\/1,,$/);

    // Read a row at a time (keyset pages), the same lines come out.
    const paged: string[] = [];
    const deps = { appSecret: suite.deps.appSecret, publicBaseUrl: suite.deps.config.publicBaseUrl };
    for await (const line of monthCsv(suite.deps.knex, deps, seeded.store.id, month, 1)) paged.push(line);
    expect(paged.join('').replace(/^\uFEFF/, '')).to.equal(res.text.replace(/^\uFEFF/, ''));
    expect(paged[0]!.startsWith('\uFEFFtype,')).to.equal(true);
  });

  it('the CSV defuses every text cell a spreadsheet would run as a formula; amounts stay plain numbers', async () => {
    const reasons = [
      "-1+1+cmd|' /C calc'!A0",
      '=HYPERLINK("http://example.invalid","x")',
      '+SUM(A1:A2)',
      '@SUM(A1)',
      '\tcmd',
      '\rcmd',
      '-5',
    ];
    for (const [i, reason] of reasons.entries()) {
      await creditRefund(suite.deps.knex, {
        orderId: orders[0]!,
        amountMinor: 115,
        reason,
        refundKey: `formula-${i}`,
      });
    }
    const res = await merchantGet(suite, seeded.token, `/shawarma/invoices/export?month=${month}`);
    expect(res.status).to.equal(200);
    // The reasons hold no line break of their own but \r: split on the CSV's CRLF only.
    const lines = res.text
      .replace(/^\uFEFF/, '')
      .split('\r\n')
      .slice(1, -1);
    const cells = (line: string): string[] => {
      const out: string[] = [];
      const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
      for (let m = re.exec(line); m && out.length < 11; m = re.exec(line)) {
        out.push(m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replace(/""/g, '"') : m[1]!);
      }
      return out;
    };
    const notes = lines.filter((l) => {
      const row = cells(l);
      return row[0] === 'credit_note' && row[3] === String(orders[0]);
    });
    expect(notes).to.have.length(reasons.length);
    expect(notes.map((l) => cells(l)[9])).to.deep.equal(reasons.map((r) => `'${r}`));
    for (const line of notes) {
      const row = cells(line);
      // total_excl_vat, vat, total: negative numbers as they are, no apostrophe.
      expect([row[6], row[7], row[8]]).to.deep.equal(['-1.00', '-0.15', '-1.15']);
      // Every text column (all but number, order_id, invoice_number and the amounts) starts harmlessly.
      const text = row.filter((_, i) => ![1, 3, 4, 6, 7, 8].includes(i));
      for (const cell of text) expect(cell, line).to.not.match(/^[=+\-@\t\r]/);
    }
  });

  it('the fixture refuses a vat_number that is not 15 digits, naming its path', async () => {
    let error: unknown = null;
    try {
      await loadFixture(suite.deps, {
        stores: [{ ref: 'bad_vat', name: 'Bad', currency: 'SAR', vat_number: '12345' }],
      });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(FixtureError);
    expect((error as Error).message).to.equal('stores[0].vat_number: must be exactly 15 digits');
  });
});
