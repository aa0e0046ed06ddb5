import { expect } from 'chai';
import type { Refund } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { readProductForm, type ProductForm } from '../../../shared/services/catalogue/product-form';
import { operatorActor } from '../../../shared/services/audit';
import { couponDetail, createCoupon, listCoupons } from '../../../shared/services/coupons/manage';
import { manualRefundNote } from '../../../shared/services/refunds/create';
import { refundMessage } from '../../../shared/services/refunds/notify';
import { refundSummary, refundView } from '../../../shared/services/refunds/view';
import { createStore } from '../../helpers/builders';
import { sharedDeps, truncateAll } from '../../helpers/deps';

/**
 * Money the dashboard shows from other services keeps its currency's decimals: a KWD coupon and a KWD
 * refund read "1.250", not "12.50" (minor units are fils, three to the dinar).
 */
describe('three-decimal money in coupons and refunds', () => {
  let deps: Deps;

  before(async () => {
    deps = await sharedDeps();
  });

  beforeEach(async () => {
    await truncateAll(deps);
  });

  it('a fixed KWD coupon is stored in fils and read back with three decimals; a percentage keeps two', async () => {
    const store = await createStore({ currency: 'KWD' });
    const fixed = await createCoupon(deps.knex, operatorActor(store.id), store.id, {
      code: 'FILS',
      type: 'fixed',
      amount: '1.250',
      active: true,
      max_uses: null,
      min_order: '10.500',
      products: [],
      payment_restrictions: [],
      starts_at: null,
      expires_at: null,
    });
    expect(fixed.amount).to.equal('1.250');
    expect(fixed.min_order).to.equal('10.500');
    const row = await deps.knex('coupons').where('id', fixed.id).first('amount', 'min_order_minor');
    expect(Number(row.amount)).to.equal(1250);
    expect(Number(row.min_order_minor)).to.equal(10_500);
    const pct = await createCoupon(deps.knex, operatorActor(store.id), store.id, {
      code: 'TEN',
      type: 'percentage',
      amount: '10',
      active: true,
      max_uses: null,
      min_order: null,
      products: [],
      payment_restrictions: [],
      starts_at: null,
      expires_at: null,
    });
    expect(pct.amount).to.equal('10.00');
    expect((await couponDetail(deps.knex, store.id, fixed.id)).amount).to.equal('1.250');
    const list = await listCoupons(deps.knex, store.id, {}, { page: 1, per_page: 10 });
    expect(list.items.map((c) => c.amount)).to.deep.equal(['10.00', '1.250']);
  });

  it('a KWD refund, its summary and its messages have three decimals', async () => {
    const refund = {
      id: 1,
      order_id: 2,
      amount_minor: 1250,
      currency: 'KWD',
      status: 'succeeded',
      kind: 'manual',
      provider: 'bank',
      reason: null,
      note: null,
      withdraw_goods: false,
      provider_refund_id: null,
      provider_status: null,
      failure_reason: null,
      attempts: 0,
      created_at: new Date(),
      succeeded_at: new Date(),
      failed_at: null,
    } as unknown as Refund;
    expect(refundView(refund).amount).to.equal('1.250');
    expect(refundMessage(refund, 2, 'Souq')).to.contain('1.250 KWD');
    expect(manualRefundNote('bank', 1250, 'KWD')).to.contain('return 1.250 KWD');
    const summary = await refundSummary(deps.knex, { payment_id: null, currency: 'KWD' });
    expect(summary).to.deep.equal({
      currency: 'KWD',
      paid: '0.000',
      refunded: '0.000',
      pending: '0.000',
      refundable: '0.000',
    });
  });

  it('the product form reads plan prices and option prices in fils for a KWD store', () => {
    const form: ProductForm = {
      name: 'Club',
      type: 'subscription',
      price: '0',
      sale_price: '',
      stock: '',
      description: '',
      active: true,
      codes: '',
      categories: [],
      license_on: false,
      license_prefix: '',
      license_lock: 'none',
      license_max: '',
      fivem: '',
      plans: [
        { id: '', name: 'Monthly', price: '1.250', duration: 'monthly', remove: false },
        { id: '', name: '', price: '', duration: 'monthly', remove: false },
      ],
      fields: [{ label: 'Size', type: 'select', required: true, options: 'S\nL | 0.125', remove: false }],
    };
    const read = readProductForm(form, 'KWD');
    expect(read.ok && read.input.plans).to.deep.equal([
      { name: 'Monthly', price_minor: 1250, duration: 'monthly' },
    ]);
    expect(read.ok && read.input.fields[0]?.options).to.deep.equal([
      { label: 'S', price_minor: 0 },
      { label: 'L', price_minor: 125 },
    ]);
    const tooFine = readProductForm({ ...form, plans: [{ ...form.plans[0]!, price: '1.2505' }] }, 'KWD');
    expect(tooFine).to.deep.equal({ ok: false, errors: { plans: 'badMoney' } });
    const none = readProductForm({ ...form, plans: [] }, 'KWD');
    expect(none).to.deep.equal({ ok: false, errors: { plans: 'planNeeded' } });
  });
});
