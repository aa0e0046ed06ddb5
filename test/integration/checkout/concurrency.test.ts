import { expect } from 'chai';
import { Checkout, Coupon, CouponUse, Order, Product, Store } from '../../../db/models';
import { createProduct } from '../../helpers/builders';
import { addCodes, CheckoutSuite, createCoupon, dataOf, EmbedCaller, GUEST, storeSuite } from './support';

const GUEST_PATH = '/api/embed/guest/checkout';

describe('Checkout under concurrency (real simultaneous requests)', () => {
  let suite: CheckoutSuite;
  let store: Store;
  let api: EmbedCaller;

  before(async () => {
    ({ suite, store, api } = await storeSuite({ paymentMethod: {} }));
  });
  after(() => suite.close());

  const fire = (count: number, body: Record<string, unknown>) =>
    Promise.all(Array.from({ length: count }, () => api.post(GUEST_PATH, { ...GUEST, ...body })));

  it('50 free-order checkouts on a coupon with 10 uses left create exactly 10 orders', async () => {
    const product = await createProduct(store, { price_minor: 2500 });
    const coupon = await createCoupon(store, { code: 'RUSH', amount: 10_000, max_uses: 25, uses_count: 15 });

    const results = await fire(50, { product_id: product.id, quantity: 1, coupon_code: 'RUSH' });

    const won = results.filter((r) => r.status === 200);
    const lost = results.filter((r) => r.status !== 200);
    expect(won).to.have.length(10);
    for (const r of won) expect(dataOf(r).type).to.equal('free_order');
    expect(lost).to.have.length(40);
    for (const r of lost) {
      expect(r.status).to.equal(400);
      expect(r.body).to.deep.equal({
        success: false,
        error_code: 'coupon_exhausted',
        message: 'Coupon has reached maximum uses',
      });
    }

    expect((await Coupon.query().findById(coupon.id))!.uses_count).to.equal(25);
    const orders = await Order.query().where({ coupon_id: coupon.id });
    expect(orders).to.have.length(10);
    expect(orders.map((o) => o.id).sort()).to.deep.equal(won.map((r) => Number(dataOf(r).order_id)).sort());
    expect(await CouponUse.query().where({ coupon_id: coupon.id }).resultSize()).to.equal(10);
    // The refused ones rolled back whole: no checkout of theirs remains.
    expect(await Checkout.query().where({ product_id: product.id }).resultSize()).to.equal(10);
    const jobs = await Promise.all(
      orders.map((o) => suite.deps.queues.fulfilment.getJob(`order-created-${o.id}`)),
    );
    expect(jobs.every(Boolean)).to.equal(true);
  });

  it('never reserves one code key for two checkouts', async () => {
    const product = await createProduct(store, { type: 'code' });
    await addCodes(suite.deps, product, 7);

    const results = await fire(10, { product_id: product.id, quantity: 2 });

    const won = results.filter((r) => r.status === 200);
    expect(won).to.have.length(3);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).to.equal(400);
      expect(r.body.message).to.equal('Insufficient stock');
    }
    const keys = await suite.deps.knex('product_codes').where({ product_id: product.id }).orderBy('id');
    const reserved = keys.filter((k: { status: string }) => k.status === 'reserved');
    expect(reserved).to.have.length(6);
    const perCheckout = new Map<number, number>();
    for (const k of reserved as { checkout_id: number }[]) {
      perCheckout.set(k.checkout_id, (perCheckout.get(k.checkout_id) ?? 0) + 1);
    }
    expect([...perCheckout.keys()].sort()).to.deep.equal(
      won.map((r) => Number(dataOf(r).checkout_id)).sort(),
    );
    expect([...perCheckout.values()]).to.deep.equal([2, 2, 2]);
  });

  it('never sells more finite stock than there is', async () => {
    const product = await createProduct(store, { stock: 5 });
    const results = await fire(20, { product_id: product.id, quantity: 1 });
    expect(results.filter((r) => r.status === 200)).to.have.length(5);
    expect(results.filter((r) => r.status === 400)).to.have.length(15);
    expect((await Product.query().findById(product.id))!.stock).to.equal(0);
    expect(await Checkout.query().where({ product_id: product.id, reserved: true }).resultSize()).to.equal(5);
  });
});
