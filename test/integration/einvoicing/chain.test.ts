import { expect } from 'chai';
import crypto from 'node:crypto';
import { ORDER_STATUS, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { FIRST_PREVIOUS_HASH } from '../../../shared/services/einvoicing/ubl';
import { enableSimulation } from '../../../shared/services/einvoicing/settings';
import { issueCreditNote } from '../../../shared/services/invoices/credit-notes';
import { merchantInvoice } from '../../../shared/services/invoices/read';
import { createOrderFromCheckout } from '../../../shared/services/orders/create-from-checkout';
import { recomputeHash, tlvFields } from '../../helpers/einvoice-check';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';

/**
 * The per-store chain under real concurrency: 20 orders of one store paid at once (each its own
 * transaction, as payment reconciliation runs them), some rolled back after their document was chained.
 */
describe('e-invoicing: one chain per store under concurrency', function () {
  this.timeout(120_000);
  let deps: Deps;
  let store: Store;
  let product: Product;

  before(async () => {
    deps = await isolatedDeps();
  });
  after(async () => {
    await deps.close();
  });

  beforeEach(async () => {
    store = await createStore({
      legal_name: 'Acme Digital LLC',
      vat_number: '310122393500003',
      tax_mode: 'inclusive',
      tax_rate_bp: 1500,
    });
    await deps.knex.transaction((trx) => enableSimulation(trx, deps.cipher, store.id, new Date()));
    product = await createProduct(store, { price_minor: 11_500 });
  });

  const pay = (checkoutId: number, doomed = false) =>
    deps.tx(async (uow) => {
      const { order } = await createOrderFromCheckout(uow, checkoutId, { status: ORDER_STATUS.IN_PROGRESS });
      if (doomed) throw new Error('the payment transaction failed after its document was chained');
      return order.id;
    });

  it('20 concurrent orders (and 4 rolled back) give counters 1..20, each previous_hash the hash before', async () => {
    const checkouts = await Promise.all(
      Array.from({ length: 24 }, () =>
        insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 }).then((c) => c.checkout.id),
      ),
    );
    const results = await Promise.allSettled(checkouts.map((id, i) => pay(id, i % 6 === 5)));
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(20);

    const docs = await deps.knex('einvoice_documents').where({ store_id: store.id }).orderBy('counter');
    expect(docs.map((d) => Number(d.counter))).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(docs[0].previous_hash).to.equal(FIRST_PREVIOUS_HASH);
    for (let i = 1; i < docs.length; i++) expect(docs[i].previous_hash).to.equal(docs[i - 1].hash);
    expect(new Set(docs.map((d) => d.hash)).size).to.equal(20);
    expect(new Set(docs.map((d) => d.uuid)).size).to.equal(20);
    const chain = await deps.knex('einvoice_chains').where({ store_id: store.id }).first();
    expect(Number(chain.last_counter)).to.equal(20);
    expect(chain.last_hash).to.equal(docs[19].hash);
    // Every document belongs to an invoice that exists (the rolled-back ones took their links with them).
    const invoices = await deps.knex('invoices').whereIn(
      'id',
      docs.map((d) => d.invoice_id),
    );
    expect(invoices).to.have.length(20);

    // A credit note is the next link of the same chain.
    const orderId = Number(invoices[0].order_id);
    await deps.knex.transaction((trx) =>
      issueCreditNote(trx, { orderId, amountMinor: 5_750, reason: 'Partial refund', refundKey: 'r1' }),
    );
    const note = await deps.knex('einvoice_documents').where({ store_id: store.id, counter: 21 }).first();
    expect(note.kind).to.equal('credit_note');
    expect(note.previous_hash).to.equal(docs[19].hash);
  });

  it('the invoice answer carries uuid, counter, hash, previous_hash, xml and reporting; hash recomputes; QR has tags 6-9', async () => {
    const { checkout } = await insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 });
    const orderId = await pay(checkout.id);
    const urlDeps = { appSecret: deps.appSecret, publicBaseUrl: 'http://127.0.0.1:3000' };
    const view = await merchantInvoice(deps.knex, urlDeps, store.id, orderId);
    expect(view.counter).to.equal(1);
    expect(view.previous_hash).to.equal(FIRST_PREVIOUS_HASH);
    expect(view.uuid).to.match(/^[0-9a-f-]{36}$/);
    expect(view.reporting!.status).to.equal('pending');
    const xml = Buffer.from(view.xml!, 'base64').toString('utf8');
    expect(recomputeHash(xml)).to.equal(view.hash);
    const f = tlvFields(view.qr);
    expect([...f.keys()]).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(f.get(4)!.toString()).to.equal('115.00');
    expect(f.get(5)!.toString()).to.equal('15.00');
    expect(f.get(6)!.toString()).to.equal(view.hash);
    const key = crypto.createPublicKey({ key: f.get(8)!, format: 'der', type: 'spki' });
    expect(
      crypto.verify(
        'sha256',
        Buffer.from(view.hash!, 'base64'),
        key,
        Buffer.from(f.get(7)!.toString(), 'base64'),
      ),
    ).to.equal(true);
    // Signed once: a second read answers the same document and QR.
    const again = await merchantInvoice(deps.knex, urlDeps, store.id, orderId);
    expect(again.xml).to.equal(view.xml);
    expect(again.qr).to.equal(view.qr);
    // Ten first readers of a new document at once: one signature (ECDSA is randomised: two signings differ).
    const { checkout: next } = await insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 });
    const nextOrder = await pay(next.id);
    const reads = await Promise.all(
      Array.from({ length: 10 }, () => merchantInvoice(deps.knex, urlDeps, store.id, nextOrder)),
    );
    expect(new Set(reads.map((r) => r.qr)).size).to.equal(1);
    expect(new Set(reads.map((r) => r.xml)).size).to.equal(1);
    expect(reads[0]!.previous_hash).to.equal(view.hash);
    // The signing key is sealed at rest.
    const settings = await deps.knex('einvoice_settings').where({ store_id: store.id }).first();
    expect(settings.private_key_encrypted).to.match(/^v2\./);
    expect(settings.private_key_encrypted).to.not.contain('PRIVATE KEY');
    expect(deps.cipher.decrypt(settings.private_key_encrypted)).to.contain('BEGIN PRIVATE KEY');
  });

  it('a store not in phase 2 chains nothing', async () => {
    const plain = await createStore({
      legal_name: 'Plain',
      vat_number: '310122393500003',
      tax_mode: 'inclusive',
      tax_rate_bp: 1500,
    });
    const p = await createProduct(plain, { price_minor: 11_500 });
    const { checkout } = await insertCheckout(plain, p, { tax_minor: 1_500, tax_rate_bp: 1_500 });
    await pay(checkout.id);
    expect(await deps.knex('einvoice_documents').where({ store_id: plain.id })).to.have.length(0);
  });
});
