import { expect } from 'chai';
import { ORDER_STATUS, OrderStatus, Product } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import { TRANSITIONS } from '../../../shared/services/orders/transitions';
import { changeOrderStatus } from '../../../shared/services/orders';
import { createProduct } from '../../helpers/builders';
import { call, expectEnvelope, merchantStore, MerchantStore, seedOrder, useMerchantSuite } from './support';

/**
 * PUT /shawarma/orders/{id}: every pair of the 6 statuses against the transition table, and each side
 * effect (manual payment confirmed, licenses activated or revoked, stock and keys returned, subscription
 * cancelled, FiveM commands withdrawn, payment refunded), with the audit row written alongside.
 */
describe('Merchant API: order status transitions', function () {
  this.timeout(30_000);
  const suite = useMerchantSuite();
  let m: MerchantStore;
  let plain: Product;

  before(async () => {
    m = await merchantStore();
    plain = await createProduct(m.store, { price_minor: 1_000 });
  });

  const put = (id: number, status: number) =>
    call(suite.server, m.token, 'PUT', `/shawarma/orders/${id}`, { status });

  async function payment(status: string, method = 'bank'): Promise<number> {
    const { knex } = suite.deps;
    const [checkout] = await knex('checkouts')
      .insert({
        store_id: m.store.id,
        token_hash: sha256(randomToken()),
        customer_first_name: 'S',
        customer_last_name: 'A',
        customer_email: 's@example.com',
        customer_country_code: '966',
        customer_phone: '500000001',
        product_id: plain.id,
        quantity: 1,
        unit_price_minor: 1_000,
        subtotal_minor: 1_000,
        total_minor: 1_000,
        currency: 'SAR',
        status: 'paid',
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .returning('id');
    const [row] = await knex('payments')
      .insert({
        checkout_id: (checkout as { id: number }).id,
        store_id: m.store.id,
        method,
        provider: method,
        status,
        amount_minor: 1_000,
        currency: 'SAR',
      })
      .returning('id');
    return Number((row as { id: number }).id);
  }

  it('follows the table for all 36 pairs: allowed ones change with an audit row, others are 422 naming the allowed', async () => {
    const { knex } = suite.deps;
    for (const from of [1, 2, 3, 4, 5, 6] as OrderStatus[]) {
      for (const to of [1, 2, 3, 4, 5, 6] as OrderStatus[]) {
        const order = await seedOrder(knex, m.store, plain, { status: from });
        const res = await put(order.id, to);
        const now = (await knex('orders').where('id', order.id).first()).status;
        const audit = await knex('order_status_events').where('order_id', order.id);
        if (from === to) {
          expectEnvelope(res, 200);
          expect(res.body.data).to.deep.include({ status: from, changed: false });
          expect(audit).to.have.length(0);
        } else if (TRANSITIONS[from].includes(to)) {
          expectEnvelope(res, 200);
          expect(res.body.data, `${from}->${to}`).to.deep.include({
            id: order.id,
            status: to,
            previous_status: from,
            changed: true,
          });
          expect(now, `${from}->${to}`).to.equal(to);
          expect(audit).to.have.length(1);
          expect(audit[0]).to.deep.include({
            from_status: from,
            to_status: to,
            source: 'merchant',
            store_id: m.store.id,
          });
          expect(audit[0].merchant_token_id).to.be.a('number');
        } else {
          expectEnvelope(res, 422);
          expect(now, `${from}->${to} refused`).to.equal(from);
          expect(audit).to.have.length(0);
          const message = (res.body.errors as { status: string[] }).status[0]!;
          expect(res.body.message).to.equal(message);
          if (TRANSITIONS[from].length === 0) expect(message).to.match(/cannot change status/);
          for (const allowed of TRANSITIONS[from])
            expect(message, `${from}->${to}`).to.contain(`${allowed} (`);
        }
      }
    }
    expect(TRANSITIONS).to.deep.equal({
      1: [2, 3, 4, 5],
      2: [3, 4, 5, 6],
      3: [4, 5, 6],
      4: [6],
      5: [],
      6: [],
    });
  });

  it('Under review -> In progress confirms the manual payment (paid, merchant audit) and enqueues fulfilment', async () => {
    const { knex, queues } = suite.deps;
    const paymentId = await payment('initiated', 'bank');
    const order = await seedOrder(knex, m.store, plain, {
      status: ORDER_STATUS.UNDER_REVIEW,
      paymentId,
      paymentMethod: 'bank',
    });
    expectEnvelope(await put(order.id, ORDER_STATUS.IN_PROGRESS), 200);
    expect((await knex('payments').where('id', paymentId).first()).status).to.equal('paid');
    const events = await knex('payment_events').where({ payment_id: paymentId, to_status: 'paid' });
    expect(events.map((e) => e.source)).to.deep.equal(['merchant']);
    const audit = await knex('order_status_events').where('order_id', order.id).first();
    expect(audit.data).to.deep.include({ payment_confirmed: true });
    const job = await queues.fulfilment.getJob(`order-merchant-${audit.id}`);
    expect(job?.data).to.deep.equal({ orderId: order.id, event: 'paid' });
  });

  it('Awaiting payment -> In progress marks its payment paid; -> Completed activates generated licenses', async () => {
    const { knex } = suite.deps;
    const licensed = await createProduct(m.store, { license_enabled: true, license_prefix: 'LIC' });
    const [plan] = await knex('product_plans')
      .insert({ product_id: licensed.id, name: 'Yearly', price_minor: 1_000, duration: 'yearly' })
      .returning('id');
    const paymentId = await payment('pending', 'card');
    const order = await seedOrder(knex, m.store, licensed, {
      status: ORDER_STATUS.AWAITING_PAYMENT,
      paymentId,
      planId: plan.id,
    });
    await knex('licenses').insert({
      store_id: m.store.id,
      product_id: licensed.id,
      plan_id: plan.id,
      order_id: order.id,
      order_item_id: order.itemId,
      unit: 1,
      key: `LIC-${order.id}-A`,
      status: 'generated',
    });
    expectEnvelope(await put(order.id, ORDER_STATUS.IN_PROGRESS), 200);
    expect((await knex('payments').where('id', paymentId).first()).status).to.equal('paid');
    expect((await knex('licenses').where('order_id', order.id).first()).status).to.equal('generated');

    const res = await put(order.id, ORDER_STATUS.COMPLETED);
    expectEnvelope(res, 200);
    expect(res.body.data).to.deep.include({ licenses_activated: 1 });
    const license = await knex('licenses').where('order_id', order.id).first();
    expect(license.status).to.equal('active');
    const days =
      (new Date(license.expires_at).getTime() - new Date(license.starts_at).getTime()) / 86_400_000;
    expect(days).to.be.within(365, 366);
    expect((await knex('orders').where('id', order.id).first()).completed_at).to.not.equal(null);
  });

  it('Completed -> Refunded: every license revoked, payment refunded, subscription cancelled, FiveM withdrawn; delivered goods stay', async () => {
    const { knex } = suite.deps;
    const product = await createProduct(m.store, { license_enabled: true, license_prefix: 'REF', stock: 5 });
    const [plan] = await knex('product_plans')
      .insert({ product_id: product.id, name: 'M', price_minor: 1_000, duration: 'monthly' })
      .returning('id');
    const paymentId = await payment('paid', 'card');
    const order = await seedOrder(knex, m.store, product, {
      status: ORDER_STATUS.COMPLETED,
      paymentId,
      quantity: 2,
    });
    await knex('order_items').where('id', order.itemId).update({ delivered_at: new Date() });
    await knex('licenses').insert([
      {
        store_id: m.store.id,
        product_id: product.id,
        order_id: order.id,
        order_item_id: order.itemId,
        unit: 1,
        key: `REF-${order.id}-1`,
        status: 'active',
      },
      {
        store_id: m.store.id,
        product_id: product.id,
        order_id: order.id,
        order_item_id: order.itemId,
        unit: 2,
        key: `REF-${order.id}-2`,
        status: 'expired',
      },
    ]);
    await knex('subscriptions').insert({
      store_id: m.store.id,
      product_id: product.id,
      plan_id: plan.id,
      order_id: order.id,
      order_item_id: order.itemId,
      status: 'active',
      current_period_start: new Date(),
    });
    await knex('fivem_commands').insert([
      { store_id: m.store.id, order_id: order.id, command: 'run-1', status: 'pending' },
      {
        store_id: m.store.id,
        order_id: order.id,
        command: 'run-2',
        status: 'executed',
        executed_at: new Date(),
      },
    ]);

    const res = await put(order.id, ORDER_STATUS.REFUNDED);
    expectEnvelope(res, 200);
    expect(res.body.data).to.deep.include({ status: 6, licenses_revoked: 2 });
    expect(await knex('licenses').where('order_id', order.id).pluck('status')).to.deep.equal([
      'revoked',
      'revoked',
    ]);
    expect((await knex('payments').where('id', paymentId).first()).status).to.equal('refunded');
    expect((await knex('subscriptions').where('order_id', order.id).first()).status).to.equal('cancelled');
    expect(
      await knex('fivem_commands').where('order_id', order.id).orderBy('id').pluck('status'),
    ).to.deep.equal(['withdrawn', 'executed']);
    expect((await knex('products').where('id', product.id).first()).stock).to.equal(5); // delivered: not returned
    const detail = await call(suite.server, m.token, 'GET', `/shawarma/orders/${order.id}`);
    expect(
      (detail.body.data as { licenses: { status: string }[] }).licenses.map((l) => l.status),
    ).to.deep.equal(['revoked', 'revoked']);
    expect((detail.body.data as { history: unknown[] }).history).to.deep.equal([
      {
        from: 4,
        to: 6,
        source: 'merchant',
        at: (detail.body.data as { history: { at: string }[] }).history[0]!.at,
      },
    ]);
  });

  it('records the change once: one audit row with the steps’ data, and its webhook events in order', async () => {
    const { knex } = suite.deps;
    const own = await merchantStore();
    await knex('merchant_webhook_endpoints').insert({
      store_id: own.store.id,
      url: 'http://127.0.0.1:9/hook',
      events: ['license.revoked', 'subscription.cancelled', 'order.status_changed'],
      secret_encrypted: suite.deps.cipher.encrypt('whsec_order_effects_0001'),
    });
    const product = await createProduct(own.store, { license_enabled: true, license_prefix: 'EFF' });
    const [plan] = await knex('product_plans')
      .insert({ product_id: product.id, name: 'M', price_minor: 1_000, duration: 'monthly' })
      .returning('id');
    const order = await seedOrder(knex, own.store, product, { status: ORDER_STATUS.IN_PROGRESS });
    const [license] = await knex('licenses')
      .insert({
        store_id: own.store.id,
        product_id: product.id,
        order_id: order.id,
        order_item_id: order.itemId,
        unit: 1,
        key: `EFF-${order.id}`,
        status: 'active',
      })
      .returning('id');
    const [subscription] = await knex('subscriptions')
      .insert({
        store_id: own.store.id,
        product_id: product.id,
        plan_id: plan.id,
        order_id: order.id,
        order_item_id: order.itemId,
        status: 'active',
        current_period_start: new Date(),
      })
      .returning('id');

    const res = await call(suite.server, own.token, 'PUT', `/shawarma/orders/${order.id}`, { status: 5 });
    expectEnvelope(res, 200);
    expect(res.body.data).to.deep.include({ status: 5, changed: true, licenses_revoked: 1 });
    const audits = await knex('order_status_events').where('order_id', order.id);
    expect(audits).to.have.length(1);
    expect(audits[0].data).to.deep.equal({ stock_returned: 0, licenses_revoked: 1, licenses_activated: 0 });
    const deliveries = await knex('merchant_webhook_deliveries')
      .where('store_id', own.store.id)
      .orderBy('id')
      .pluck('event_id');
    expect(deliveries).to.deep.equal([
      `license.revoked:${license.id}`,
      `subscription.cancelled:${subscription.id}`,
      `order.status_changed:${audits[0].id}`,
    ]);
    // The same PUT again changes nothing and records nothing.
    expect(
      (await call(suite.server, own.token, 'PUT', `/shawarma/orders/${order.id}`, { status: 5 })).body.data,
    ).to.deep.include({ changed: false });
    expect(await knex('order_status_events').where('order_id', order.id)).to.have.length(1);
    expect(await knex('merchant_webhook_deliveries').where('store_id', own.store.id)).to.have.length(3);
  });

  it('a change that fails part-way leaves nothing behind: no status, no revoke, no event, no job', async () => {
    const { knex, queues } = suite.deps;
    const product = await createProduct(m.store, { license_enabled: true, license_prefix: 'RBK' });
    const order = await seedOrder(knex, m.store, product, { status: ORDER_STATUS.IN_PROGRESS });
    await knex('licenses').insert({
      store_id: m.store.id,
      product_id: product.id,
      order_id: order.id,
      order_item_id: order.itemId,
      unit: 1,
      key: `RBK-${order.id}`,
      status: 'active',
    });
    // The audit row, written after every step, is refused for this order: the whole unit rolls back.
    await knex.raw(`create or replace function refuse_order_audit() returns trigger as $$
      begin
        if new.order_id = ${order.id} then raise exception 'audit refused for the test'; end if;
        return new;
      end $$ language plpgsql`);
    await knex.raw(`create trigger refuse_order_audit before insert on order_status_events
      for each row execute function refuse_order_audit()`);
    let failure: unknown = null;
    try {
      await changeOrderStatus(suite.deps, m.store.id, order.id, ORDER_STATUS.CANCELLED, {
        actor: { merchantTokenId: null },
      }).catch((err: unknown) => {
        failure = err;
      });
    } finally {
      await knex.raw('drop trigger refuse_order_audit on order_status_events');
      await knex.raw('drop function refuse_order_audit()');
    }
    expect((failure as Error | null)?.message).to.match(/audit refused for the test/);
    expect(Number((await knex('orders').where('id', order.id).first()).status)).to.equal(
      ORDER_STATUS.IN_PROGRESS,
    );
    expect(await knex('licenses').where('order_id', order.id).pluck('status')).to.deep.equal(['active']);
    expect(await knex('order_status_events').where('order_id', order.id)).to.have.length(0);
    expect(
      await knex('job_outbox').whereRaw("data->>'orderId' = ?", [String(order.id)]),
      'no job staged',
    ).to.deep.equal([]);
    const jobs = await queues.fulfilment.getJobs(['waiting', 'delayed', 'completed', 'failed', 'active']);
    expect(jobs.filter((j) => j.data.orderId === order.id)).to.deep.equal([]);
  });

  it('In progress -> Cancelled returns unsold stock and undelivered code keys', async () => {
    const { knex } = suite.deps;
    const stocked = await createProduct(m.store, { stock: 3 });
    const first = await seedOrder(knex, m.store, stocked, { status: ORDER_STATUS.IN_PROGRESS, quantity: 2 });
    expectEnvelope(await put(first.id, ORDER_STATUS.CANCELLED), 200);
    expect((await knex('products').where('id', stocked.id).first()).stock).to.equal(5);
    expect((await knex('order_status_events').where('order_id', first.id).first()).data).to.deep.include({
      stock_returned: 2,
    });

    const keys = await createProduct(m.store, { type: 'code' });
    const second = await seedOrder(knex, m.store, keys, { status: ORDER_STATUS.IN_PROGRESS });
    await knex('product_codes').insert({
      product_id: keys.id,
      code: `C-${second.id}`,
      status: 'sold',
      order_item_id: second.itemId,
      sold_at: new Date(),
    });
    expectEnvelope(await put(second.id, ORDER_STATUS.CANCELLED), 200);
    expect(await knex('product_codes').where('product_id', keys.id).first()).to.deep.include({
      status: 'available',
      order_item_id: null,
    });
    expect((await knex('orders').where('id', second.id).first()).cancelled_at).to.not.equal(null);
  });

  it('two status changes at once serialise on the order row: the table holds for the second', async () => {
    const { knex } = suite.deps;
    for (let round = 0; round < 3; round += 1) {
      const order = await seedOrder(knex, m.store, plain, { status: ORDER_STATUS.IN_PROGRESS });
      const [x, y] = await Promise.all([
        put(order.id, ORDER_STATUS.COMPLETED),
        put(order.id, ORDER_STATUS.CANCELLED),
      ]);
      const audit = await knex('order_status_events').where('order_id', order.id).orderBy('id');
      const final = (await knex('orders').where('id', order.id).first()).status;
      // Either 3->4 then 4->5 refused, or 3->5 then 5->4 refused: one change, and the final state is its target.
      expect([x.status, y.status].sort()).to.deep.equal([200, 422]);
      expect(audit).to.have.length(1);
      expect(final).to.equal(audit[0].to_status);
    }
  });
});
