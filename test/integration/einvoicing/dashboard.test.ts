import { expect } from 'chai';
import { ORDER_STATUS, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { documentPage } from '../../../shared/services/invoices/read';
import { InvoicePageRefs } from '../../../shared/services/invoices/refs';
import { createOrderFromCheckout } from '../../../shared/services/orders/create-from-checkout';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { parkOtherStores, recomputeHash, tlvFields } from '../../helpers/einvoice-check';
import { FakeZatca } from '../../helpers/fake-zatca';
import { startServer, type TestServer } from '../../helpers/http';
import { dashboardForm, dashboardLogin, type DashboardLogin } from '../dashboard/support';

/**
 * The dashboard's e-invoicing page over HTTP: onboarding with the ZATCA stub through the forms (Arabic and
 * English), the documents' reporting status after the `report-einvoices` task (run through
 * POST /__dev/tasks/report-einvoices), a rejection shown with ZATCA's message, the XML download, and the
 * buyer's page carrying the phase-2 QR.
 */
describe('e-invoicing: the dashboard page', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;
  let zatca: FakeZatca;
  let store: Store;
  let owner: DashboardLogin;

  before(async () => {
    zatca = await new FakeZatca().start();
    deps = await isolatedDeps({ ZATCA_API_URL: zatca.url, RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore({
      legal_name: 'Acme Digital LLC',
      vat_number: '310122393500003',
      tax_mode: 'inclusive',
      tax_rate_bp: 1500,
    });
    owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner');
  });
  after(async () => {
    await server.close();
    await zatca.close();
  });

  const get = (path: string) => server.request(path, { headers: { cookie: owner.cookie } });
  const post = (path: string, fields: Record<string, string>) =>
    server.request(path, { ...dashboardForm(owner, fields), redirect: 'manual' });
  const sell = async () => {
    const product = await createProduct(store, { price_minor: 11_500 });
    const { checkout } = await insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 });
    return deps.tx(
      async (uow) =>
        (await createOrderFromCheckout(uow, checkout.id, { status: ORDER_STATUS.IN_PROGRESS })).order.id,
    );
  };
  const address = {
    crn: '1010010000',
    street: 'طريق الملك فهد',
    building_number: '1234',
    district: 'العليا',
    city: 'الرياض',
    postal_zone: '12211',
    branch_name: 'Main',
    location: 'Riyadh',
    industry: 'Digital goods',
  };

  it('onboards through the forms, shows reporting and rejections, and serves the XML', async () => {
    const first = await get('/merchant/einvoicing?lang=ar');
    expect(first.status).to.equal(200);
    expect(first.text).to.contain('dir="rtl"');
    expect(first.text).to.contain('الفوترة الإلكترونية');
    expect(first.text).to.contain('<label for="e-building">');
    expect(first.text).to.not.contain('<script>');

    const bad = await post('/merchant/einvoicing/onboard?lang=en', { ...address, building_number: '12' });
    expect(bad.status).to.equal(422);
    expect(bad.text).to.contain('building number 4 digits');
    expect(await deps.knex('einvoice_settings').where({ store_id: store.id })).to.have.length(0);

    expect((await post('/merchant/einvoicing/onboard', address)).status).to.equal(303);
    const otpPage = await get('/merchant/einvoicing?lang=en');
    expect(otpPage.text).to.contain('One-time password');

    const wrong = await post('/merchant/einvoicing/compliance?lang=en', { otp: '999999' });
    expect(wrong.status).to.equal(422);
    expect(wrong.text).to.contain('The provided OTP is invalid');
    expect((await post('/merchant/einvoicing/compliance', { otp: '123345' })).status).to.equal(303);
    expect((await post('/merchant/einvoicing/activate', {})).status).to.equal(303);
    const active = await get('/merchant/einvoicing?lang=en');
    expect(active.text).to.contain('Onboarded');
    expect(active.text).to.contain('debit_note: <strong>PASS</strong>');

    const reportedOrder = await sell();
    const rejectedOrder = await sell();
    const [, second] = await deps.knex('einvoice_documents').where({ store_id: store.id }).orderBy('counter');
    zatca.rejectNext(second.uuid);
    await parkOtherStores(deps.knex, store.id);
    const ran = await server.request('/__dev/tasks/report-einvoices', { method: 'POST' });
    expect(ran.status).to.equal(200);
    expect(ran.body).to.deep.equal({ ran: 'report-einvoices' });

    const list = await get('/merchant/einvoicing?lang=en');
    expect(list.text).to.contain('Reported');
    expect(list.text).to.contain('Rejected by ZATCA');
    expect(list.text).to.contain('BR-KSA-37');
    expect(list.text).to.contain(`href="/merchant/orders/${reportedOrder}"`);
    expect(list.text).to.contain(`href="/merchant/orders/${rejectedOrder}"`);

    // An outage past ZATCA's 24 hours: the document is still pending and shown as late.
    await sell();
    const third = await deps.knex('einvoice_documents').where({ store_id: store.id, counter: 3 }).first();
    await deps
      .knex('einvoice_documents')
      .where({ id: third.id })
      .update({
        issued_at: new Date(Date.now() - 25 * 3600_000),
        next_attempt_at: new Date(Date.now() - 1000),
      });
    zatca.failNext('5xx');
    await server.request('/__dev/tasks/report-einvoices', { method: 'POST' });
    const late = await get('/merchant/einvoicing?lang=en');
    expect(late.text).to.contain('Late: not reported within 24 hours');
    expect(late.text).to.contain('ZATCA answered HTTP 503; trying again later.');
    expect((await get('/merchant/einvoicing?lang=ar')).text).to.contain('متأخر: لم يُبلَّغ عنه خلال 24 ساعة');

    const [doc] = await deps.knex('einvoice_documents').where({ store_id: store.id }).orderBy('counter');
    const xml = await get(`/merchant/einvoicing/documents/${doc.id}/xml`);
    expect(xml.status).to.equal(200);
    expect(xml.headers.get('content-type')).to.equal('application/xml; charset=utf-8');
    expect(xml.headers.get('content-disposition')).to.contain('invoice-1.xml');
    expect(recomputeHash(xml.text)).to.equal(doc.hash);
    expect(xml.text).to.contain('<cbc:CityName>الرياض</cbc:CityName>');

    // Another store's owner gets a 404 for it.
    const other = await createStore();
    const stranger = await dashboardLogin(deps.knex, deps.appSecret, other.id, 'owner');
    const refused = await server.request(`/merchant/einvoicing/documents/${doc.id}/xml`, {
      headers: { cookie: stranger.cookie },
    });
    expect(refused.status).to.equal(404);

    // The buyer's page (and its PDF, drawn from the same view) carries the phase-2 QR.
    const page = await documentPage(
      deps.knex,
      { appSecret: deps.appSecret, publicBaseUrl: 'http://127.0.0.1' },
      new InvoicePageRefs(deps.appSecret).ref(reportedOrder),
    );
    expect(page.kind).to.equal('invoice');
    if (page.kind !== 'invoice') return;
    expect([...tlvFields(page.invoice.qr).keys()]).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(tlvFields(page.invoice.qr).get(6)!.toString()).to.equal(doc.hash);
  });
});
