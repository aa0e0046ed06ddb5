import { expect } from 'chai';
import { ORDER_STATUS, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createOrderFromCheckout } from '../../../shared/services/orders/create-from-checkout';
import { creditNoteForRefund, issueCreditNote } from '../../../shared/services/invoices/credit-notes';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';

/**
 * Gapless numbers under real concurrency: 50 payments of one store commit at once (each its own
 * transaction, as reconciliation runs them), some of them rolled back after the invoice was written.
 */
describe('tax invoices: gapless numbers under concurrency', function () {
  this.timeout(60_000);
  let deps: Deps;
  let store: Store;
  let product: Product;

  before(async () => {
    deps = await isolatedDeps({ DATABASE_POOL_MAX: '20' });
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
    product = await createProduct(store, { price_minor: 11_500 });
  });

  const checkouts = (n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        insertCheckout(store, product, { tax_minor: 1_500, tax_rate_bp: 1_500 }).then((c) => c.checkout.id),
      ),
    );

  it('50 concurrent payments get 50 distinct numbers, 1 to 50, with rolled-back ones giving theirs back', async () => {
    const ids = await checkouts(60);
    // Ten of the 60 transactions fail after their order (and invoice) was written: their numbers return.
    const doomed = new Set(ids.filter((_, i) => i % 6 === 5));
    const results = await Promise.allSettled(
      ids.map((checkoutId) =>
        deps.tx(async (uow) => {
          const { order } = await createOrderFromCheckout(uow, checkoutId, {
            status: ORDER_STATUS.IN_PROGRESS,
          });
          if (doomed.has(checkoutId)) throw new Error('the payment transaction failed after the invoice');
          return order.id;
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(50);
    const invoices = await deps.knex('invoices').where({ store_id: store.id }).select('number', 'order_id');
    expect(invoices).to.have.length(50);
    expect(invoices.map((i) => Number(i.number)).sort((a, b) => a - b)).to.deep.equal(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    expect(new Set(invoices.map((i) => Number(i.order_id))).size).to.equal(50);
    const paidOrders = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value as number] : []));
    expect(invoices.map((i) => Number(i.order_id)).sort((a, b) => a - b)).to.deep.equal(
      paidOrders.sort((a, b) => a - b),
    );
  });

  it('the same order paid by two callers at once has one invoice', async () => {
    const [checkoutId] = await checkouts(1);
    await Promise.all(
      [1, 2, 3].map(() =>
        deps.tx((uow) => createOrderFromCheckout(uow, checkoutId!, { status: ORDER_STATUS.IN_PROGRESS })),
      ),
    );
    const invoices = await deps.knex('invoices').where({ store_id: store.id });
    expect(invoices.map((i) => Number(i.number))).to.deep.equal([1]);
  });

  it('concurrent partial refunds: gapless credit-note numbers, never more than the invoice', async () => {
    const ids = await checkouts(1);
    const orderId = await deps.tx(
      async (uow) =>
        (await createOrderFromCheckout(uow, ids[0]!, { status: ORDER_STATUS.IN_PROGRESS })).order.id,
    );
    // 20 refunds of 10.00 against a 115.00 invoice: 11 fit, 9 are refused.
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        deps.knex.transaction((trx) =>
          issueCreditNote(trx, { orderId, amountMinor: 1_000, reason: 'Partial', refundKey: `r${i}` }),
        ),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(11);
    const notes = await deps.knex('credit_notes').where({ store_id: store.id }).orderBy('number');
    expect(notes.map((n) => Number(n.number))).to.deep.equal(Array.from({ length: 11 }, (_, i) => i + 1));
    expect(notes.reduce((sum, n) => sum + Number(n.total_minor), 0)).to.equal(11_000);
  });

  it('the refunds hook credits at most what is left, and never fails a refund over its paperwork', async () => {
    const ids = await checkouts(1);
    const orderId = await deps.tx(
      async (uow) =>
        (await createOrderFromCheckout(uow, ids[0]!, { status: ORDER_STATUS.IN_PROGRESS })).order.id,
    );
    const now = new Date();
    await deps.knex.transaction((trx) =>
      creditNoteForRefund(trx, { id: 900_001, order_id: orderId, amount_minor: 10_000, reason: null }, now),
    );
    await deps.knex.transaction((trx) =>
      creditNoteForRefund(trx, { id: 900_002, order_id: orderId, amount_minor: 5_000, reason: 'More' }, now),
    );
    await deps.knex.transaction((trx) =>
      creditNoteForRefund(trx, { id: 900_003, order_id: orderId, amount_minor: 5_000, reason: 'Again' }, now),
    );
    const notes = await deps.knex('credit_notes').where({ order_id: orderId }).orderBy('number');
    expect(
      notes.map((n) => [Number(n.total_minor), Number(n.vat_minor), n.reason, n.refund_key]),
    ).to.deep.equal([
      [10_000, 1_304, 'Refund', 'refund-900001'],
      [1_500, 196, 'More', 'refund-900002'],
    ]);
  });
});
