import { expect } from 'chai';
import crypto from 'node:crypto';
import { ORDER_STATUS, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import {
  renewProductionCsid,
  requestComplianceCsid,
  requestProductionCsid,
  runComplianceChecks,
  startOnboarding,
  startRenewal,
} from '../../../shared/services/einvoicing/onboarding';
import { reportEinvoices } from '../../../shared/services/einvoicing/reporting';
import { SIMULATION_ADDRESS } from '../../../shared/services/einvoicing/settings';
import { createOrderFromCheckout } from '../../../shared/services/orders/create-from-checkout';
import { merchantInvoice } from '../../../shared/services/invoices/read';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { parkOtherStores, recomputeHash, tlvFields, xpathText } from '../../helpers/einvoice-check';
import { FakeZatca } from '../../helpers/fake-zatca';

/** Onboarding end to end against the ZATCA stub: CSR, OTP, compliance CSID, checks, production CSID, renewal. */
describe('e-invoicing: onboarding with ZATCA', function () {
  this.timeout(60_000);
  let deps: Deps;
  let zatca: FakeZatca;
  let store: Store;
  const d = () => ({ knex: deps.knex, cipher: deps.cipher, zatcaApiUrl: zatca.url });

  before(async () => {
    zatca = await new FakeZatca().start(); // trusts only the certificates it issued
    deps = await isolatedDeps({ ZATCA_API_URL: zatca.url });
  });
  after(async () => {
    await deps.close();
    await zatca.close();
  });
  beforeEach(async () => {
    store = await createStore({
      legal_name: 'Acme Digital LLC',
      vat_number: '310122393500003',
      tax_mode: 'inclusive',
      tax_rate_bp: 1500,
    });
  });

  const sell = async () => {
    const product = await createProduct(store, { price_minor: 11_500 });
    const { checkout } = await insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 });
    return deps.tx(
      async (uow) =>
        (await createOrderFromCheckout(uow, checkout.id, { status: ORDER_STATUS.IN_PROGRESS })).order.id,
    );
  };
  const settings = () => deps.knex('einvoice_settings').where({ store_id: store.id }).first();

  it('keys and CSR, OTP, compliance CSID, three compliance checks, production CSID; then invoices are signed and reported', async () => {
    const { csr } = await startOnboarding(d(), store.id, { ...SIMULATION_ADDRESS, crn: '1010010000' });
    expect(csr).to.contain('BEGIN CERTIFICATE REQUEST');
    let s = await settings();
    expect(s.status).to.equal('keys');
    expect(s.private_key_encrypted).to.match(/^v2\./);
    // Before onboarding is finished, a sale chains nothing.
    await sell();
    expect(await deps.knex('einvoice_documents').where({ store_id: store.id })).to.have.length(0);

    // A wrong one-time password is ZATCA's refusal, shown as such; nothing changes.
    await requestComplianceCsid(d(), store.id, '000000').then(
      () => expect.fail('accepted a wrong OTP'),
      (err: Error) => expect(err.message).to.contain('OTP is invalid'),
    );
    expect((await settings()).status).to.equal('keys');
    await requestComplianceCsid(d(), store.id, '123345');
    s = await settings();
    expect(s.status).to.equal('compliance');
    expect(s.compliance_secret_encrypted).to.match(/^v2\./);
    const otpCall = zatca.requests.find((r) => r.path === '/compliance' && r.headers.otp === '123345')!;
    expect(otpCall.headers['accept-version']).to.equal('V2');

    const checks = await runComplianceChecks(d(), store.id);
    expect(checks).to.deep.equal({ invoice: 'PASS', credit_note: 'PASS', debit_note: 'PASS' });
    expect(zatca.checked.map((c) => xpathText(c.xml, 'InvoiceTypeCode'))).to.deep.equal([
      '388',
      '381',
      '383',
    ]);
    for (const c of zatca.checked) expect(recomputeHash(c.xml)).to.equal(c.hash);

    await requestProductionCsid(d(), store.id);
    s = await settings();
    expect(s.status).to.equal('active');
    expect(s.certificate).to.not.equal(s.compliance_certificate);
    expect(new Date(s.certificate_expires_at).getTime()).to.be.greaterThan(Date.now());

    const orderId = await sell();
    const view = await merchantInvoice(
      deps.knex,
      { appSecret: deps.appSecret, publicBaseUrl: 'http://127.0.0.1' },
      store.id,
      orderId,
    );
    expect(view.counter).to.equal(1);
    const xml = Buffer.from(view.xml!, 'base64').toString();
    expect(xpathText(xml, 'X509Certificate')).to.equal(s.certificate);
    expect(xpathText(xml, 'CitySubdivisionName')).to.equal('Al Olaya');
    await parkOtherStores(deps.knex, store.id);
    const result = await reportEinvoices(d(), new Date(Date.now() + 1000));
    expect(result.reported).to.equal(1);
    expect(zatca.reported.at(-1)!.uuid).to.equal(view.uuid);
  });

  it('renewal: a new key and CSR, a new OTP, a new production CSID; later documents are signed with the new key', async () => {
    await startOnboarding(d(), store.id, SIMULATION_ADDRESS);
    await requestComplianceCsid(d(), store.id, '123345');
    await runComplianceChecks(d(), store.id);
    await requestProductionCsid(d(), store.id);
    const before = await settings();
    const first = await sell();

    const { csr } = await startRenewal(d(), store.id);
    expect(csr).to.not.equal(before.csr);
    await renewProductionCsid(d(), store.id, 'abc').then(
      () => expect.fail('accepted a malformed OTP'),
      (err: Error) => expect(err.message).to.contain('6 digits'),
    );
    await renewProductionCsid(d(), store.id, '654321');
    const after = await settings();
    expect(after.certificate).to.not.equal(before.certificate);
    expect(after.pending_csr).to.equal(null);
    expect(deps.cipher.decrypt(after.private_key_encrypted)).to.not.equal(
      deps.cipher.decrypt(before.private_key_encrypted),
    );

    const second = await sell();
    const urlDeps = { appSecret: deps.appSecret, publicBaseUrl: 'http://127.0.0.1' };
    const a = await merchantInvoice(deps.knex, urlDeps, store.id, first);
    const b = await merchantInvoice(deps.knex, urlDeps, store.id, second);
    expect(b.previous_hash).to.equal(a.hash); // the chain goes on across the renewal
    const keyOf = (qr: string) =>
      crypto.createPublicKey({ key: tlvFields(qr).get(8)!, format: 'der', type: 'spki' });
    const newCert = new crypto.X509Certificate(Buffer.from(after.certificate, 'base64'));
    expect(keyOf(b.qr).export({ type: 'spki', format: 'der' })).to.deep.equal(
      newCert.publicKey.export({ type: 'spki', format: 'der' }),
    );
    expect(await reportEinvoices(d(), new Date(Date.now() + 1000))).to.deep.include({
      reported: 2,
      rejected: 0,
    });
  });

  it('refuses a store without a VAT number, and steps out of order', async () => {
    const plain = await createStore({});
    await startOnboarding(d(), plain.id, SIMULATION_ADDRESS).then(
      () => expect.fail('onboarded a store without a VAT number'),
      (err: Error) => expect(err.message).to.contain('VAT number'),
    );
    await startOnboarding(d(), store.id, SIMULATION_ADDRESS);
    await requestProductionCsid(d(), store.id).then(
      () => expect.fail('skipped the compliance checks'),
      (err: Error) => expect(err.message).to.contain('compliance checks first'),
    );
  });
});
