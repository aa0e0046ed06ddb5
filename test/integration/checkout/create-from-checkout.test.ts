import { expect } from 'chai';
import { Checkout, Coupon, CouponUse, Order, OrderItem, Product, Store } from '../../../db/models';
import { InvalidError } from '../../../shared/errors';
import { expireCheckouts } from '../../../shared/services/maintenance';
import { createOrderFromCheckout, WarningSink } from '../../../shared/services/orders';
import { createProduct } from '../../helpers/builders';
import { addCodes, CheckoutSuite, createCoupon, dataOf, EmbedCaller, GUEST, storeSuite } from './support';

describe('createOrderFromCheckout', () => {
  let suite: CheckoutSuite;
  let store: Store;
  let api: EmbedCaller;

  before(async () => {
    ({ suite, store, api } = await storeSuite({ paymentMethod: {} }));
  });
  after(() => suite.close());

  async function openCheckout(body: Record<string, unknown>): Promise<number> {
    const res = await api.post('/api/embed/guest/checkout', { ...GUEST, quantity: 1, ...body });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(dataOf(res).type).to.equal('payment_required');
    return Number(dataOf(res).checkout_id);
  }

  const run = (checkoutId: number, status: 1 | 2 | 3 | 4 = 3, logger?: WarningSink) =>
    suite.deps.tx((uow) =>
      createOrderFromCheckout(uow, checkoutId, { status, paymentMethod: 'card', paymentId: null, logger }),
    );

  it('creates the order with the checkout’s snapshot once, and returns it again after', async () => {
    const product = await createProduct(store, { price_minor: 3000 });
    const checkoutId = await openCheckout({ product_id: product.id, quantity: 2, customer_note: 'note' });

    const first = await run(checkoutId, 4);
    expect(first.created).to.equal(true);
    expect(first.order).to.include({
      checkout_id: checkoutId,
      status: 4,
      subtotal_minor: 6000,
      total_minor: 6000,
      payment_method: 'card',
      customer_first_name: 'Sara',
      customer_note: 'note',
      currency: 'SAR',
    });
    expect(first.order.completed_at).to.not.equal(null);
    expect((await Checkout.query().findById(checkoutId))!.status).to.equal('paid');

    const second = await run(checkoutId);
    expect(second.created).to.equal(false);
    expect(second.order.id).to.equal(first.order.id);
    expect(await Order.query().where({ checkout_id: checkoutId }).resultSize()).to.equal(1);
    expect(await OrderItem.query().where({ order_id: first.order.id }).resultSize()).to.equal(1);
  });

  it('creates one order when called for one checkout at the same time', async () => {
    const product = await createProduct(store);
    const checkoutId = await openCheckout({ product_id: product.id });
    const results = await Promise.all(Array.from({ length: 5 }, () => run(checkoutId)));
    expect(results.filter((r) => r.created)).to.have.length(1);
    expect(new Set(results.map((r) => r.order.id)).size).to.equal(1);
  });

  it('counts coupon uses atomically: held uses are consumed, lapsed checkouts take one only while any are left', async () => {
    const product = await createProduct(store, { price_minor: 5000 });
    const coupon = await createCoupon(store, { code: 'HALF', amount: 5000, max_uses: 5 });
    const lapsed: number[] = [];
    for (let i = 0; i < 5; i += 1)
      lapsed.push(await openCheckout({ product_id: product.id, coupon_code: 'HALF' }));
    // All 5 uses are held: a sixth checkout is refused.
    const refused = await api.post('/api/embed/guest/checkout', {
      ...GUEST,
      quantity: 1,
      product_id: product.id,
      coupon_code: 'HALF',
    });
    expect(refused.status).to.equal(400);
    // They expire and give their uses back; five new checkouts hold them again.
    await Checkout.query()
      .whereIn('id', lapsed)
      .patch({ expires_at: new Date(Date.now() - 1000) });
    await expireCheckouts(suite.deps.knex, undefined, suite.deps);
    const live: number[] = [];
    for (let i = 0; i < 5; i += 1)
      live.push(await openCheckout({ product_id: product.id, coupon_code: 'HALF' }));
    const warnings: Record<string, unknown>[] = [];
    const logger: WarningSink = { warn: (details) => warnings.push(details) };

    // All ten are paid at once (the lapsed ones late).
    const results = await Promise.all([...lapsed, ...live].map((id) => run(id, 3, logger)));

    // Paid checkouts keep their orders: the customers paid the discounted price.
    expect(results.every((r) => r.created)).to.equal(true);
    const after = await Coupon.query().findById(coupon.id);
    expect(after!.uses_count).to.equal(5);
    expect(after!.reserved_uses).to.equal(0);
    expect(await CouponUse.query().where({ coupon_id: coupon.id }).resultSize()).to.equal(10);
    expect(warnings).to.have.length(5);
  });

  it('refuses a free order on a used-up coupon, writing nothing', async () => {
    const product = await createProduct(store, { price_minor: 1000 });
    const coupon = await createCoupon(store, { code: 'GONE', amount: 10_000, max_uses: 1 });
    const res = await api.post('/api/embed/guest/checkout', {
      ...GUEST,
      product_id: product.id,
      quantity: 1,
    });
    const checkoutId = Number(dataOf(res).checkout_id);
    // Turn it into a free checkout on the coupon, then use the coupon up.
    await Checkout.query()
      .findById(checkoutId)
      .patch({ coupon_id: coupon.id, discount_minor: 1000, total_minor: 0 });
    await Coupon.query().findById(coupon.id).patch({ uses_count: 1 });

    let thrown: unknown;
    try {
      await run(checkoutId);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(InvalidError);
    expect((thrown as Error).message).to.equal('Coupon has reached maximum uses');
    expect(await Order.query().where({ checkout_id: checkoutId }).resultSize()).to.equal(0);
    expect(await CouponUse.query().where({ coupon_id: coupon.id }).resultSize()).to.equal(0);
    expect((await Checkout.query().findById(checkoutId))!.status).to.equal('created');
  });

  it('sells the reserved keys, and takes free ones again when a late payment follows expiry', async () => {
    const product = await createProduct(store, { type: 'code' });
    await addCodes(suite.deps, product, 3);
    const live = await openCheckout({ product_id: product.id, quantity: 1 });
    const late = await openCheckout({ product_id: product.id, quantity: 2 });

    const { order } = await run(live);
    const [item] = await OrderItem.query().where({ order_id: order.id });
    const sold = await suite.deps.knex('product_codes').where({ order_item_id: item.id });
    expect(sold).to.have.length(1);
    expect(sold[0]).to.include({ status: 'sold', checkout_id: live });

    await Checkout.query()
      .findById(late)
      .patch({ expires_at: new Date(Date.now() - 1000) });
    await expireCheckouts(suite.deps.knex, undefined, suite.deps);
    expect(
      await suite.deps.knex('product_codes').where({ product_id: product.id, status: 'available' }),
    ).to.have.length(2);

    const lateOrder = await run(late);
    const [lateItem] = await OrderItem.query().where({ order_id: lateOrder.order.id });
    expect(
      await suite.deps.knex('product_codes').where({ order_item_id: lateItem.id, status: 'sold' }),
    ).to.have.length(2);
    expect((await Checkout.query().findById(late))!.status).to.equal('paid');
  });

  it('takes finite stock again for a payment that arrives after expiry gave it back', async () => {
    const product = await createProduct(store, { stock: 4 });
    const checkoutId = await openCheckout({ product_id: product.id, quantity: 3 });
    expect((await Product.query().findById(product.id))!.stock).to.equal(1);
    await Checkout.query()
      .findById(checkoutId)
      .patch({ expires_at: new Date(Date.now() - 1000) });
    await expireCheckouts(suite.deps.knex, undefined, suite.deps);
    expect((await Product.query().findById(product.id))!.stock).to.equal(4);

    await run(checkoutId);
    expect((await Product.query().findById(product.id))!.stock).to.equal(1);
    // A live reservation is not taken twice.
    const other = await openCheckout({ product_id: product.id, quantity: 1 });
    await run(other);
    expect((await Product.query().findById(product.id))!.stock).to.equal(0);
  });
});
