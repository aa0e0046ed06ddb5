import { expect } from 'chai';
import { Product, Store } from '../../../db/models';
import { createProduct, createStore } from '../../helpers/builders';
import { CheckoutSuite, createCoupon, createPlan, dataOf, EmbedCaller, storeSuite } from './support';

describe('POST /api/embed/apply-coupon', () => {
  let suite: CheckoutSuite;
  let store: Store;
  let product: Product;
  let api: EmbedCaller;

  before(async () => {
    ({ suite, store, api } = await storeSuite());
    // Charged 40.00 (the sale price), listed at 50.00.
    product = await createProduct(store, { price_minor: 5000, sale_price_minor: 4000 });
  });
  after(() => suite.close());

  const apply = (body: Record<string, unknown>) => api.post('/api/embed/apply-coupon', body);
  const refusal = async (code: string, quantity = 2, productId = product.id) => {
    const res = await apply({ code, product_id: productId, quantity });
    return { status: res.status, body: res.body };
  };

  it('gives a percentage discount on the sale price times the quantity', async () => {
    const coupon = await createCoupon(store, {
      code: 'SAVE10',
      type: 'percentage',
      amount: 1000,
      payment_restrictions: ['card', 'mada'],
    });
    const res = await apply({ code: 'SAVE10', product_id: product.id, quantity: 2 });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      success: true,
      data: {
        coupon_id: coupon.id,
        code: 'SAVE10',
        type: 'percentage',
        amount: 10,
        discount_amount: 8,
        payment_restrictions: ['card', 'mada'],
        creator: false,
      },
    });
  });

  it('matches the code case-insensitively and shows no restriction as an empty array', async () => {
    const coupon = await createCoupon(store, { code: 'Fixed550', type: 'fixed', amount: 550 });
    const res = await apply({ code: ' fixed550 ', product_id: product.id, quantity: 3 });
    expect(res.status).to.equal(200);
    expect(dataOf(res)).to.deep.equal({
      coupon_id: coupon.id,
      code: 'Fixed550',
      type: 'fixed',
      amount: 5.5,
      discount_amount: 5.5,
      payment_restrictions: [],
      creator: false,
    });
  });

  it('never discounts more than the subtotal', async () => {
    await createCoupon(store, { code: 'BIGFIXED', type: 'fixed', amount: 100_000 });
    await createCoupon(store, { code: 'ALLFREE', type: 'percentage', amount: 10_000 });
    expect(
      dataOf(await apply({ code: 'BIGFIXED', product_id: product.id, quantity: 2 })).discount_amount,
    ).to.equal(80);
    const full = dataOf(await apply({ code: 'ALLFREE', product_id: product.id, quantity: 2 }));
    expect(full).to.include({ amount: 100, discount_amount: 80 });
  });

  it('rounds a percentage discount half up in minor units', async () => {
    const cheap = await createProduct(store, { price_minor: 999 });
    await createCoupon(store, { code: 'EIGHTH', type: 'percentage', amount: 1250 });
    // 12.5% of 9.99 = 1.24875 -> 1.25
    expect(dataOf(await apply({ code: 'EIGHTH', product_id: cheap.id, quantity: 1 }))).to.include({
      amount: 12.5,
      discount_amount: 1.25,
    });
  });

  it('answers 400 "Invalid coupon" for an unknown code or one of another store', async () => {
    const other = await createStore();
    await createCoupon(other, { code: 'ELSEWHERE' });
    for (const code of ['NOPE', 'ELSEWHERE']) {
      expect(await refusal(code)).to.deep.equal({
        status: 400,
        body: { success: false, error_code: 'coupon_invalid', message: 'Invalid coupon' },
      });
    }
  });

  it('answers 400 "Coupon is not active" when inactive, expired or not yet started', async () => {
    await createCoupon(store, { code: 'OFF', active: false });
    await createCoupon(store, { code: 'OLD', expires_at: new Date(Date.now() - 1000) });
    await createCoupon(store, { code: 'SOON', starts_at: new Date(Date.now() + 3600_000) });
    for (const code of ['OFF', 'OLD', 'SOON']) {
      expect(await refusal(code), code).to.deep.equal({
        status: 400,
        body: { success: false, error_code: 'coupon_not_active', message: 'Coupon is not active' },
      });
    }
    await createCoupon(store, {
      code: 'WINDOW',
      starts_at: new Date(Date.now() - 1000),
      expires_at: new Date(Date.now() + 3600_000),
    });
    expect((await refusal('WINDOW')).status).to.equal(200);
  });

  it('answers 400 "Coupon has reached maximum uses" once uses_count reaches max_uses', async () => {
    await createCoupon(store, { code: 'USEDUP', max_uses: 3, uses_count: 3 });
    await createCoupon(store, { code: 'ONELEFT', max_uses: 3, uses_count: 2 });
    expect(await refusal('USEDUP')).to.deep.equal({
      status: 400,
      body: { success: false, error_code: 'coupon_exhausted', message: 'Coupon has reached maximum uses' },
    });
    expect((await refusal('ONELEFT')).status).to.equal(200);
  });

  it('answers 400 "Minimum order value is <amount>" below the minimum, counting the quantity', async () => {
    await createCoupon(store, { code: 'MIN100', min_order_minor: 10_000 });
    expect(await refusal('MIN100', 2)).to.deep.equal({
      status: 400,
      body: { success: false, error_code: 'coupon_minimum_order', message: 'Minimum order value is 100.00' },
    });
    // 3 × 40.00 = 120.00 reaches it.
    expect((await refusal('MIN100', 3)).status).to.equal(200);
  });

  it('answers 400 "This coupon is not valid for this product" for a coupon limited to other products', async () => {
    const other = await createProduct(store);
    await createCoupon(store, { code: 'ONLYOTHER' }, [other.id]);
    await createCoupon(store, { code: 'BOTH' }, [other.id, product.id]);
    expect(await refusal('ONLYOTHER')).to.deep.equal({
      status: 400,
      body: {
        success: false,
        error_code: 'coupon_not_for_product',
        message: 'This coupon is not valid for this product',
      },
    });
    expect((await refusal('BOTH')).status).to.equal(200);
    expect((await refusal('ONLYOTHER', 1, other.id)).status).to.equal(200);
  });

  it('prices the discount on a plan of the product when one is named', async () => {
    const subscription = await createProduct(store, { type: 'subscription', price_minor: 0 });
    const plan = await createPlan(subscription, { price_minor: 12_000 });
    const foreignPlan = await createPlan(product);
    await createCoupon(store, { code: 'PLAN10', amount: 1000, min_order_minor: 10_000 });
    const res = await apply({
      code: 'PLAN10',
      product_id: subscription.id,
      quantity: 1,
      subscription_plan: plan.id,
    });
    expect(res.status).to.equal(200);
    expect(dataOf(res).discount_amount).to.equal(12);
    const wrong = await apply({
      code: 'PLAN10',
      product_id: subscription.id,
      quantity: 1,
      subscription_plan: foreignPlan.id,
    });
    expect(wrong.status).to.equal(422);
    expect(wrong.body.errors).to.deep.equal({
      subscription_plan: ['The selected subscription plan is not a plan of this product.'],
    });
  });

  it('answers 422 "Invalid request" with the errors of every bad field', async () => {
    const res = await apply({ product_id: 'abc', quantity: 0 });
    expect(res.status).to.equal(422);
    expect(res.body.success).to.equal(false);
    expect(res.body.message).to.equal('Invalid request');
    const errors = res.body.errors as Record<string, string[]>;
    expect(errors).to.have.keys('code', 'product_id', 'quantity');
    expect(errors.quantity[0]).to.match(/greater than or equal to 1/);

    const fractional = await apply({ code: 'X', product_id: product.id, quantity: 1.5 });
    expect(fractional.status).to.equal(422);
    expect(fractional.body.errors).to.have.keys('quantity');
  });

  it('answers 422 on product_id for a product that is not on sale in this store', async () => {
    await createCoupon(store, { code: 'ANY' });
    const foreign = await createProduct(await createStore());
    const inactive = await createProduct(store, { active: false });
    for (const id of [foreign.id, inactive.id, 999_999]) {
      const res = await apply({ code: 'ANY', product_id: id, quantity: 1 });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.deep.equal({ product_id: ['The selected product id is invalid.'] });
    }
  });
});
