import { expect } from 'chai';
import {
  CustomField,
  ORDER_STATUS,
  Order,
  OrderStatus,
  Payment,
  Product,
  ProductPlan,
  Store,
} from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { cancelOrder } from '../../../shared/services/orders';
import {
  fulfilOrder,
  queueFivemCommands,
  renderCommand,
  resolvePlayer,
  sendOrderDelivery,
} from '../../../shared/services/fulfilment';
import {
  activateOrderLicenses,
  addMonths,
  generateItemLicenses,
  generateLicenseKey,
  LICENSE_KEY_PATTERN,
  periodEnd,
} from '../../../shared/services/licenses';
import { createOrderFromCheckout } from '../../../shared/services/orders';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import { createCoupon } from '../checkout/support';
import { insertPaidPayment, startWorkers, usePaymentsSuite, waitFor } from './support';

describe('fulfilment: keys, licenses, subscriptions, FiveM, order status, cancel and refund', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite({ workers: false });
  let deps: Deps;
  let store: Store;

  before(() => {
    deps = suite.deps;
  });
  beforeEach(async () => {
    store = await createStore({ name: 'Fulfil Store' });
  });

  async function order(
    product: Product,
    opts: {
      quantity?: number;
      plan?: ProductPlan;
      fields?: Record<string, unknown>;
      status?: OrderStatus;
      phone?: string;
    } = {},
  ): Promise<Order> {
    const { checkout } = await insertCheckout(store, product, {
      quantity: opts.quantity ?? 1,
      plan_id: opts.plan?.id ?? null,
      fields: opts.fields ?? {},
      customer_phone: opts.phone ?? '500009501',
    });
    const payment = await insertPaidPayment(checkout);
    const created = await deps.tx((uow) =>
      createOrderFromCheckout(uow, checkout.id, {
        status: opts.status ?? ORDER_STATUS.IN_PROGRESS,
        paymentId: payment.id,
        paymentMethod: 'card',
      }),
    );
    return created.order;
  }

  const licensesOf = (orderId: number) => deps.knex('licenses').where('order_id', orderId).orderBy('unit');
  const plan = (product: Product, duration: ProductPlan['duration']) =>
    ProductPlan.query().insertAndFetch({
      product_id: product.id,
      name: duration,
      price_minor: 1_000,
      duration,
    });

  describe('license keys', () => {
    it('have the form PREFIX-XXXX-XXXX-XXXX-XXXX from an unambiguous alphabet, and are unique', () => {
      const keys = new Set(Array.from({ length: 2_000 }, () => generateLicenseKey('acme-1')));
      expect(keys.size).to.equal(2_000);
      for (const key of keys)
        expect(key)
          .to.match(LICENSE_KEY_PATTERN)
          .and.to.match(/^ACME1-/);
      expect(generateLicenseKey(null)).to.match(/^LIC(-[A-HJ-NP-Z2-9]{4}){4}$/);
      expect([...keys].map((k) => k.slice('ACME1-'.length)).join('')).to.not.match(/[01IO]/);
    });

    it('one per unit, generated, then active on completion with the plan’s expiry; a collision draws again', async () => {
      const product = await createProduct(store, {
        license_enabled: true,
        license_prefix: 'PRO',
        license_lock_type: 'ip',
      });
      const quarterly = await plan(product, 'quarterly');
      const placed = await order(product, { quantity: 3, plan: quarterly });
      const [item] = await placed.$relatedQuery('items');

      const taken = (
        await deps
          .knex('licenses')
          .insert({
            store_id: store.id,
            product_id: product.id,
            key: `PRO-TAKE-NAAA-AAAA-${store.id}`,
            status: 'active',
          })
          .returning('key')
      )[0].key as string;
      const draws = [taken];
      const created = await generateItemLicenses(
        deps.knex,
        placed,
        item,
        product,
        (prefix) => draws.shift() ?? generateLicenseKey(prefix),
      );
      expect(created).to.equal(3);
      expect(await generateItemLicenses(deps.knex, placed, item, product), 'a second run adds none').to.equal(
        0,
      );
      const generated = await licensesOf(placed.id);
      expect(generated.map((l: { status: string }) => l.status)).to.deep.equal([
        'generated',
        'generated',
        'generated',
      ]);
      expect(generated.map((l: { key: string }) => l.key)).to.not.include(taken);
      expect(generated[0]).to.include({
        lock_type: 'ip',
        plan_id: quarterly.id,
        starts_at: null,
        expires_at: null,
      });

      const result = await fulfilOrder(deps, placed.id, 'created');
      expect(result).to.include({
        status: ORDER_STATUS.COMPLETED,
        licensesGenerated: 0,
        licensesActivated: 3,
        delivery: true,
      });
      const active = await licensesOf(placed.id);
      for (const license of active) {
        expect(license.status).to.equal('active');
        expect(license.expires_at.toISOString()).to.equal(addMonths(license.starts_at, 3).toISOString());
      }
      expect(await activateOrderLicenses(deps.knex, placed.id), 'activating twice changes nothing').to.equal(
        0,
      );
    });

    it('plan durations: monthly +1 month (clamped), quarterly +3, yearly +1 year, lifetime none', () => {
      const start = new Date('2026-01-31T10:00:00Z');
      expect(periodEnd(start, 'monthly')?.toISOString()).to.equal('2026-02-28T10:00:00.000Z');
      expect(periodEnd(start, 'quarterly')?.toISOString()).to.equal('2026-04-30T10:00:00.000Z');
      expect(periodEnd(new Date('2028-02-29T00:00:00Z'), 'yearly')?.toISOString()).to.equal(
        '2029-02-28T00:00:00.000Z',
      );
      expect(periodEnd(start, 'lifetime')).to.equal(null);
      expect(periodEnd(start, null)).to.equal(null);
    });

    it('are revoked when the order is cancelled or refunded, whatever their status', async () => {
      const product = await createProduct(store, { license_enabled: true, license_prefix: 'REV' });
      const cancelled = await order(product, { quantity: 2 });
      await fulfilOrder(deps, cancelled.id, 'created');
      await deps
        .knex('licenses')
        .where('order_id', cancelled.id)
        .where('unit', 2)
        .update({ status: 'generated' });
      const result = await cancelOrder(deps, cancelled.id, 'cancelled');
      expect(result).to.deep.equal({
        orderId: cancelled.id,
        status: ORDER_STATUS.CANCELLED,
        changed: true,
        licensesRevoked: 2,
      });
      expect((await licensesOf(cancelled.id)).map((l: { status: string }) => l.status)).to.deep.equal([
        'revoked',
        'revoked',
      ]);
      expect((await Order.query().findById(cancelled.id))?.cancelled_at).to.be.instanceOf(Date);
      expect((await cancelOrder(deps, cancelled.id, 'cancelled')).changed, 'twice changes nothing').to.equal(
        false,
      );

      const refunded = await order(product);
      await fulfilOrder(deps, refunded.id, 'created');
      const refund = await cancelOrder(deps, refunded.id, 'refunded');
      expect(refund).to.include({ status: ORDER_STATUS.REFUNDED, licensesRevoked: 1 });
      expect((await licensesOf(refunded.id))[0].status).to.equal('revoked');
      expect((await Payment.query().findById(refunded.payment_id ?? 0))?.status).to.equal('refunded');
      // A fulfilment job arriving late does not bring anything back.
      expect((await fulfilOrder(deps, refunded.id, 'created')).skipped).to.equal('closed');
      expect((await licensesOf(refunded.id))[0].status).to.equal('revoked');
      let refusal: Error | null = null;
      await cancelOrder(deps, refunded.id, 'cancelled').catch((err: Error) => (refusal = err));
      expect(refusal).to.have.property('message', 'A refunded order cannot be cancelled');
    });
  });

  it('subscription products start one subscription for the plan’s period', async () => {
    const product = await createProduct(store, { type: 'subscription' });
    const yearly = await plan(product, 'yearly');
    const placed = await order(product, { plan: yearly });
    const first = await fulfilOrder(deps, placed.id, 'created');
    expect(first).to.include({ subscriptionsStarted: 1, status: ORDER_STATUS.COMPLETED });
    expect((await fulfilOrder(deps, placed.id, 'created')).subscriptionsStarted).to.equal(0);
    const subscriptions = await deps.knex('subscriptions').where('order_id', placed.id);
    expect(subscriptions).to.have.length(1);
    const [subscription] = subscriptions;
    expect(subscription).to.include({ status: 'active', plan_id: yearly.id, product_id: product.id });
    expect(subscription.current_period_end.toISOString()).to.equal(
      addMonths(subscription.current_period_start, 12).toISOString(),
    );

    const lifetime = await plan(product, 'lifetime');
    const forever = await order(product, { plan: lifetime });
    await fulfilOrder(deps, forever.id, 'created');
    expect(
      (await deps.knex('subscriptions').where('order_id', forever.id).first()).current_period_end,
    ).to.equal(null);
    await cancelOrder(deps, forever.id, 'cancelled');
    expect((await deps.knex('subscriptions').where('order_id', forever.id).first()).status).to.equal(
      'cancelled',
    );
  });

  describe('FiveM', () => {
    const fields: CustomField[] = [
      { type: 'text', label: 'Discord name', required: false },
      { type: 'text', label: 'Player ID', required: true },
    ];

    it('resolves {player} from the first custom field labelled like "player", and refuses unsafe values', () => {
      expect(resolvePlayer(fields, { '1': ' steam:110000112345678 ' })).to.deep.equal({
        player: 'steam:110000112345678',
      });
      expect(resolvePlayer(fields, { '1': 12 })).to.deep.equal({ player: '12' });
      expect(resolvePlayer(fields, { '1': '1; quit' }).player).to.equal(null);
      expect(resolvePlayer(fields, {}).player).to.equal(null);
      expect(resolvePlayer([{ type: 'text', label: 'Name', required: true }], { '0': 'x' }).player).to.equal(
        null,
      );
      expect(
        renderCommand('give {player} vip {quantity} #{order_id}', { player: '7', orderId: 9, quantity: 2 }),
      ).to.equal('give 7 vip 2 #9');
    });

    it('puts each command once per unit on the store’s queue; a second run adds nothing; no valid player fails the entry', async () => {
      const product = await createProduct(store, { fields });
      await deps.knex('product_fivem_commands').insert([
        { product_id: product.id, command: 'give {player} vip', require_online: true, position: 1 },
        { product_id: product.id, command: 'announce order {order_id}', require_online: false, position: 2 },
      ]);
      const placed = await order(product, { quantity: 2, fields: { '1': 'license:abc123' } });
      const fulfilled = await fulfilOrder(deps, placed.id, 'created');
      expect(fulfilled.fivem).to.equal(true);
      expect(await suite.deps.queues.fivem.getJob(`fivem-${placed.id}`)).to.not.equal(undefined);

      expect(await queueFivemCommands(deps.knex, placed.id)).to.deep.equal({ queued: 4, failed: 0 });
      expect(await queueFivemCommands(deps.knex, placed.id)).to.deep.equal({ queued: 0, failed: 0 });
      const entries = await deps.knex('fivem_commands').where('order_id', placed.id).orderBy('id');
      expect(
        entries.map((e: { command: string; player_id: string; require_online: boolean; status: string }) => [
          e.command,
          e.player_id,
          e.require_online,
          e.status,
        ]),
      ).to.deep.equal([
        ['give license:abc123 vip', 'license:abc123', true, 'pending'],
        [`announce order ${placed.id}`, 'license:abc123', false, 'pending'],
        ['give license:abc123 vip', 'license:abc123', true, 'pending'],
        [`announce order ${placed.id}`, 'license:abc123', false, 'pending'],
      ]);
      expect(entries.every((e: { store_id: number }) => e.store_id === store.id)).to.equal(true);

      const unsafe = await order(product, { fields: { '1': 'x; ban all' } });
      await fulfilOrder(deps, unsafe.id, 'created');
      expect(await queueFivemCommands(deps.knex, unsafe.id)).to.deep.equal({ queued: 1, failed: 1 });

      await cancelOrder(deps, placed.id, 'cancelled');
      const statuses = await deps.knex('fivem_commands').where('order_id', placed.id).pluck('status');
      expect(statuses, 'commands of a cancelled order never run').to.deep.equal([
        'withdrawn',
        'withdrawn',
        'withdrawn',
        'withdrawn',
      ]);
    });
  });

  describe('order status and delivery', () => {
    it('services stay In progress until the merchant completes them; Under review is not fulfilled', async () => {
      const service = await createProduct(store, { type: 'service', license_enabled: false });
      const placed = await order(service);
      const first = await fulfilOrder(deps, placed.id, 'created');
      expect(first).to.include({ status: ORDER_STATUS.IN_PROGRESS, delivery: false });
      expect((await Order.query().findById(placed.id))?.status).to.equal(ORDER_STATUS.IN_PROGRESS);
      // The merchant marks the work done (the Merchant API will send this event).
      await Order.query()
        .patch({ status: ORDER_STATUS.COMPLETED, completed_at: new Date() })
        .where('id', placed.id);
      expect((await fulfilOrder(deps, placed.id, 'completed')).status).to.equal(ORDER_STATUS.COMPLETED);

      const digital = await createProduct(store, { type: 'product', license_enabled: true });
      const waiting = await order(digital, { status: ORDER_STATUS.UNDER_REVIEW });
      const skipped = await fulfilOrder(deps, waiting.id, 'created');
      expect(skipped).to.include({
        skipped: 'not-paid',
        status: ORDER_STATUS.UNDER_REVIEW,
        licensesGenerated: 0,
      });
      expect(await licensesOf(waiting.id)).to.have.length(0);
    });

    it('sends the code keys and license keys to the customer once, and marks the items delivered', async () => {
      const product = await createProduct(store, {
        name: 'Bundle',
        type: 'code',
        license_enabled: true,
        license_prefix: 'BND',
      });
      await deps.knex('product_codes').insert([
        { product_id: product.id, code: `CODE-${store.id}-1` },
        { product_id: product.id, code: `CODE-${store.id}-2` },
      ]);
      const placed = await order(product, { quantity: 2, phone: '500000599' });
      await fulfilOrder(deps, placed.id, 'created');
      expect(await sendOrderDelivery(deps, placed.id)).to.equal('sent');
      expect(await sendOrderDelivery(deps, placed.id)).to.equal('already-sent');
      const out = await suite.server.request('/__dev/outbox?to=966500000599', {
        headers: { 'X-Forwarded-For': randomIp() },
      });
      const mine = (out.body.messages as { body: string }[]).filter((m) =>
        m.body.includes(`CODE-${store.id}-1`),
      );
      expect(mine).to.have.length(1);
      const keys = (await licensesOf(placed.id)).map((l: { key: string }) => l.key);
      expect(mine[0].body)
        .to.contain(`Fulfil Store: your order #${placed.number} is ready.`)
        .and.to.contain(`CODE-${store.id}-1`)
        .and.to.contain(`CODE-${store.id}-2`);
      for (const key of keys) expect(mine[0].body).to.contain(key);
      const items = await deps.knex('order_items').where('order_id', placed.id);
      expect(items.every((i: { delivered_at: Date | null }) => i.delivered_at instanceof Date)).to.equal(
        true,
      );
    });

    it('cancelling before delivery puts the code keys back on sale', async () => {
      const product = await createProduct(store, { type: 'code' });
      await deps.knex('product_codes').insert({ product_id: product.id, code: `BACK-${store.id}` });
      const placed = await order(product, { status: ORDER_STATUS.UNDER_REVIEW });
      expect(
        await deps.knex('product_codes').where({ product_id: product.id }).first('status'),
      ).to.deep.equal({ status: 'sold' });
      await cancelOrder(deps, placed.id, 'cancelled');
      expect(
        await deps.knex('product_codes').where({ product_id: product.id }).first('status', 'order_item_id'),
      ).to.deep.equal({
        status: 'available',
        order_item_id: null,
      });
    });
  });

  it('free orders from checkout go through the same fulfilment (real workers)', async () => {
    const workers = await startWorkers(deps);
    try {
      await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
      const product = await createProduct(store, { type: 'code', price_minor: 2_000 });
      await deps.knex('product_codes').insert({ product_id: product.id, code: `FREE-${store.id}` });
      const coupon = await createCoupon(store, { type: 'percentage', amount: 10_000 });
      const res = await suite.server.request('/api/embed/guest/checkout', {
        method: 'POST',
        json: {
          product_id: product.id,
          quantity: 1,
          coupon_code: coupon.code,
          customer_first_name: 'Free',
          customer_last_name: 'Buyer',
          customer_email: 'free@example.com',
          customer_phone: '500000598',
          customer_country_code: '966',
        },
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
      });
      expect(res.status, res.text).to.equal(200);
      const { type, order_id: orderId } = res.body.data as { type: string; order_id: number };
      expect(type).to.equal('free_order');
      await waitFor(
        'the free order to complete',
        async () => (await Order.query().findById(orderId))?.status === ORDER_STATUS.COMPLETED,
      );
      await waitFor('its key in the outbox', async () => {
        const out = await suite.server.request('/__dev/outbox?to=966500000598', {
          headers: { 'X-Forwarded-For': randomIp() },
        });
        return (out.body.messages as { body: string }[]).some((m) => m.body.includes(`FREE-${store.id}`));
      });
    } finally {
      await workers.close(1_000);
    }
  });
});
