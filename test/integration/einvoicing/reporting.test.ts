import { expect } from 'chai';
import { ORDER_STATUS, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { enableSimulation } from '../../../shared/services/einvoicing/settings';
import { FIRST_RETRY_MS, reportEinvoices } from '../../../shared/services/einvoicing/reporting';
import { ensureSigned } from '../../../shared/services/einvoicing/chain';
import { maintenanceContext, maintenanceRunner } from '../../../shared/services/maintenance';
import { createOrderFromCheckout } from '../../../shared/services/orders/create-from-checkout';
import { monthCsv } from '../../../shared/services/invoices/report';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { FakeZatca } from '../../helpers/fake-zatca';
import { parkOtherStores } from '../../helpers/einvoice-check';

/** Reporting to ZATCA's single reporting endpoint (a stub on loopback): outages, warnings, rejections. */
describe('e-invoicing: reporting to ZATCA', function () {
  this.timeout(60_000);
  let deps: Deps;
  let zatca: FakeZatca;
  let store: Store;
  let product: Product;

  before(async () => {
    zatca = await new FakeZatca().start();
    zatca.trustAnyCertificate = true; // simulation stores sign with a self-issued certificate
    deps = await isolatedDeps({ ZATCA_API_URL: zatca.url });
  });
  after(async () => {
    await deps.close();
    await zatca.close();
  });

  beforeEach(async () => {
    zatca.requests.length = 0;
    zatca.reported.length = 0;
    store = await createStore({
      legal_name: 'Acme Digital LLC',
      vat_number: '310122393500003',
      tax_mode: 'inclusive',
      tax_rate_bp: 1500,
    });
    await deps.knex.transaction((trx) => enableSimulation(trx, deps.cipher, store.id, new Date()));
    product = await createProduct(store, { price_minor: 11_500 });
  });

  const order = async () => {
    const { checkout } = await insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 });
    return deps.tx(
      async (uow) =>
        (await createOrderFromCheckout(uow, checkout.id, { status: ORDER_STATUS.IN_PROGRESS })).order.id,
    );
  };
  const docs = () => deps.knex('einvoice_documents').where({ store_id: store.id }).orderBy('counter');
  const report = async (now: Date) => {
    await parkOtherStores(deps.knex, store.id);
    return reportOnce(now);
  };
  const reportOnce = (now: Date) =>
    reportEinvoices({ knex: deps.knex, cipher: deps.cipher, zatcaApiUrl: zatca.url }, now);

  it('reports through the maintenance task with Basic auth and Accept-Version V2; the stub checks hash and signature', async () => {
    await order();
    await order();
    await parkOtherStores(deps.knex, store.id);
    const run = maintenanceRunner('report-einvoices')!;
    const result = await run(deps.knex, new Date(Date.now() + 1000), maintenanceContext(deps));
    expect(result.reported).to.equal(2);
    const [a, b] = await docs();
    expect([a.reporting_status, b.reporting_status]).to.deep.equal(['reported', 'reported']);
    const calls = zatca.requests.filter((r) => r.path === '/invoices/reporting/single');
    expect(calls).to.have.length(2);
    expect(calls[0]!.headers['accept-version']).to.equal('V2');
    expect(String(calls[0]!.headers.authorization)).to.match(/^Basic /);
    const [user] = Buffer.from(String(calls[0]!.headers.authorization).slice(6), 'base64')
      .toString()
      .split(':');
    const settings = await deps.knex('einvoice_settings').where({ store_id: store.id }).first();
    expect(Buffer.from(user!, 'base64').toString()).to.equal(settings.certificate);
    expect(zatca.reported.map((r) => r.uuid)).to.deep.equal([a.uuid, b.uuid]);
    // The accountant's CSV carries each document's hash and reporting status.
    const month = new Date(Date.now() + 3 * 3600_000).toISOString().slice(0, 7);
    let csv = '';
    for await (const line of monthCsv(
      deps.knex,
      { appSecret: deps.appSecret, publicBaseUrl: 'http://127.0.0.1' },
      store.id,
      month,
    ))
      csv += line;
    const lines = csv.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]!.endsWith(',url,hash,reporting_status')).to.equal(true);
    const guard = (h: string) => (/^[+=]/.test(h) ? `'${h}` : h); // the CSV's formula guard
    expect(lines[1]!.endsWith(`,${guard(a.hash)},reported`)).to.equal(true);
    expect(lines[2]!.endsWith(`,${guard(b.hash)},reported`)).to.equal(true);
    // A second run sends nothing: both are reported.
    await run(deps.knex, new Date(Date.now() + 2000), maintenanceContext(deps));
    expect(zatca.requests.filter((r) => r.path === '/invoices/reporting/single')).to.have.length(2);
  });

  it('an outage: the document stays pending with the reason, backs off, and is reported when ZATCA is back', async () => {
    await order();
    const t0 = new Date(Date.now() + 1000);
    zatca.failNext('5xx');
    expect(await report(t0)).to.deep.equal({ reported: 0, rejected: 0, deferred: 1 });
    let [doc] = await docs();
    expect(doc.reporting_status).to.equal('pending');
    expect(doc.last_error).to.contain('503');
    expect(new Date(doc.next_attempt_at).getTime()).to.equal(t0.getTime() + FIRST_RETRY_MS);
    // Before the back-off is over nothing is sent.
    const before = zatca.requests.length;
    await report(new Date(t0.getTime() + FIRST_RETRY_MS - 1000));
    expect(zatca.requests.length).to.equal(before);
    // No answer at all (a hung connection is cut by the client's timeout in production; here: refused).
    zatca.failNext('lost');
    await report(new Date(t0.getTime() + FIRST_RETRY_MS));
    [doc] = await docs();
    expect(doc.reporting_status).to.equal('pending');
    expect(doc.last_error).to.contain('could not be reached');
    expect(new Date(doc.next_attempt_at).getTime()).to.equal(t0.getTime() + 3 * FIRST_RETRY_MS); // doubled
    // Back: reported, with ZATCA's warning kept.
    zatca.warnNext();
    expect((await report(new Date(t0.getTime() + 3 * FIRST_RETRY_MS))).reported).to.equal(1);
    [doc] = await docs();
    expect(doc.reporting_status).to.equal('reported');
    expect(doc.warnings).to.have.length(1);
    expect(doc.warnings[0].code).to.equal('BR-KSA-98');
    expect(doc.last_error).to.equal(null);
  });

  it('a rejection is kept with ZATCA’s messages and never sent again', async () => {
    await order();
    zatca.rejectNext();
    const t0 = new Date(Date.now() + 1000);
    expect((await report(t0)).rejected).to.equal(1);
    const [doc] = await docs();
    expect(doc.reporting_status).to.equal('rejected');
    expect(doc.errors[0].code).to.equal('BR-KSA-37');
    expect(doc.errors[0].message).to.contain('building number');
    const sent = zatca.requests.length;
    await report(new Date(t0.getTime() + 48 * 3600_000));
    expect(zatca.requests.length).to.equal(sent);
  });

  it('a document changed after it was hashed is rejected by ZATCA’s hash check (the stub recomputes it)', async () => {
    await order();
    const [doc] = await docs();
    const signed = await ensureSigned(deps.knex, deps.cipher, Number(doc.id));
    const tampered = String(signed.xml).replace(
      '<cbc:PayableAmount currencyID="SAR">115.00</cbc:PayableAmount>',
      '<cbc:PayableAmount currencyID="SAR">1.00</cbc:PayableAmount>',
    );
    expect(tampered).to.not.equal(signed.xml);
    await deps.knex('einvoice_documents').where({ id: doc.id }).update({ xml: tampered });
    expect((await report(new Date(Date.now() + 1000))).rejected).to.equal(1);
    const [after] = await docs();
    expect(after.reporting_status).to.equal('rejected');
    expect(after.errors.map((e: { code: string }) => e.code)).to.deep.equal(['invalid-invoice-hash']);
  });

  it('two reporting runs at once report each document once', async () => {
    for (let i = 0; i < 5; i++) await order();
    const now = new Date(Date.now() + 1000);
    await parkOtherStores(deps.knex, store.id);
    const [r1, r2] = await Promise.all([reportOnce(now), reportOnce(now)]);
    expect(r1.reported + r2.reported).to.equal(5);
    expect(zatca.reported).to.have.length(5);
    expect(new Set(zatca.reported.map((r) => r.uuid)).size).to.equal(5);
  });

  it('without ZATCA_API_URL documents are kept, not reported', async () => {
    await order();
    const result = await reportEinvoices(
      { knex: deps.knex, cipher: deps.cipher },
      new Date(Date.now() + 1000),
    );
    expect(result).to.deep.equal({ reported: 0, rejected: 0, deferred: 0 });
    expect((await docs())[0].reporting_status).to.equal('pending');
  });
});
