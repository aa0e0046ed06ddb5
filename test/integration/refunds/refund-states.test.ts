import { expect } from 'chai';
import type { Knex } from 'knex';
import { ORDER_STATUS } from '../../../db/models';
import { down, up } from '../../../db/migrations/20261128390001_refund_states';
import { randomToken, sha256 } from '../../../shared/crypto';
import { settleRefund } from '../../../shared/services/refunds';
import { withdrawAfterRefund } from '../../../shared/services/orders/refund';
import { unitOfWork } from '../../../shared/unit-of-work';
import type { Deps } from '../../../shared/deps';
import { createProduct } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { merchantStore, type MerchantStore, seedOrder } from '../merchant/support';

/**
 * The refund's own state machine (shared/services/refunds/CONTEXT.md): the migration that turns the old
 * `pending` rows into `requested` or `sent`, and the same provider answer arriving twice at once (a
 * redelivered job, a duplicate callback): settled once, the goods withdrawn once, one event of each.
 */
describe('Refund states: requested, sent, succeeded, failed', function () {
  this.timeout(30_000);
  let deps: Deps;
  let m: MerchantStore;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    m = await merchantStore();
  });

  async function paidOrder(knex: Knex, amountMinor: number) {
    const product = await createProduct(m.store, { price_minor: amountMinor, license_enabled: true });
    const [checkout] = await knex('checkouts')
      .insert({
        store_id: m.store.id,
        token_hash: sha256(randomToken()),
        customer_first_name: 'R',
        customer_last_name: 'S',
        customer_email: 'buyer@r39.test',
        customer_country_code: '966',
        customer_phone: '593900001',
        product_id: product.id,
        quantity: 1,
        unit_price_minor: amountMinor,
        subtotal_minor: amountMinor,
        total_minor: amountMinor,
        currency: 'SAR',
        status: 'paid',
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .returning('id');
    const [payment] = await knex('payments')
      .insert({
        checkout_id: (checkout as { id: number }).id,
        store_id: m.store.id,
        method: 'card',
        provider: 'moyasar',
        status: 'paid',
        amount_minor: amountMinor,
        currency: 'SAR',
        provider_payment_id: `pay_${randomToken(6)}`,
        paid_at: new Date(),
      })
      .returning('id');
    const paymentId = Number((payment as { id: number }).id);
    const order = await seedOrder(knex, m.store, product, {
      status: ORDER_STATUS.COMPLETED,
      paymentId,
      paymentMethod: 'card',
      totalMinor: amountMinor,
    });
    await knex('licenses').insert({
      store_id: m.store.id,
      product_id: product.id,
      order_id: order.id,
      order_item_id: order.itemId,
      unit: 1,
      key: `RS-${order.id}-${randomToken(4)}`,
      status: 'active',
    });
    return { ...order, paymentId };
  }

  const refundRow = (order: { id: number; paymentId: number }, amount: number, extra: object) => ({
    store_id: m.store.id,
    order_id: order.id,
    payment_id: order.paymentId,
    amount_minor: amount,
    currency: 'SAR',
    kind: 'provider',
    provider: 'moyasar',
    idempotency_key: `rfd_${randomToken(12)}`,
    ...extra,
  });

  it('the migration turns pending refunds into requested (never tried) or sent (tried), and back', async () => {
    const { knex } = deps;
    const order = await paidOrder(knex, 9_000);
    await down(knex);
    try {
      await knex('refunds').insert([
        refundRow(order, 1_000, { status: 'pending', attempts: 0 }),
        refundRow(order, 2_000, { status: 'pending', attempts: 3 }),
        refundRow(order, 3_000, { status: 'succeeded', attempts: 1, withdraw_goods: false }),
      ]);
    } finally {
      await up(knex);
    }
    const rows = await knex('refunds').where('order_id', order.id).orderBy('amount_minor');
    expect(rows.map((r) => r.status)).to.deep.equal(['requested', 'sent', 'succeeded']);
    // The old state is refused now; the new ones are the default and the only ones allowed.
    const refused = await knex('refunds')
      .insert(refundRow(order, 100, { status: 'pending' }))
      .then(
        () => null,
        (err: { code?: string }) => err.code,
      );
    expect(refused).to.equal('23514');
    const [fresh] = await knex('refunds')
      .insert(refundRow(order, 100, {}))
      .returning('status');
    expect((fresh as { status: string }).status).to.equal('requested');
  });

  it('the same success answered twice at once settles once and withdraws the goods once', async () => {
    const { knex } = deps;
    await knex('merchant_webhook_endpoints').insert({
      store_id: m.store.id,
      url: 'http://127.0.0.1:9/refund-states',
      events: ['refund.succeeded', 'order.status_changed'],
      secret_encrypted: deps.cipher.encrypt('whsec_refund_states'),
    });
    const order = await paidOrder(knex, 5_000);
    const [made] = await knex('refunds')
      .insert(refundRow(order, 5_000, { status: 'sent', attempts: 1, withdraw_goods: true }))
      .returning('id');
    const refundId = Number((made as { id: number }).id);
    const answer = () =>
      unitOfWork(deps, async (uow) => {
        const refund = await settleRefund(
          uow,
          refundId,
          { status: 'succeeded', providerRefundId: 'rf_1', providerStatus: 'refunded' },
          'worker',
        );
        return withdrawAfterRefund(deps, uow, refund, { kind: 'provider' }, new Date());
      });
    const statuses = await Promise.all([answer(), answer(), answer()]);
    expect(statuses).to.deep.equal([ORDER_STATUS.REFUNDED, ORDER_STATUS.REFUNDED, ORDER_STATUS.REFUNDED]);
    expect((await knex('refunds').where('id', refundId).first()).status).to.equal('succeeded');
    const history = await knex('order_status_events').where('order_id', order.id);
    expect(history.map((h) => [h.from_status, h.to_status, h.source])).to.deep.equal([[4, 6, 'provider']]);
    expect((await knex('licenses').where('order_id', order.id).first()).status).to.equal('revoked');
    expect((await knex('payments').where('id', order.paymentId).first()).status).to.equal('refunded');
    // One event of each, for the merchant's webhook.
    const hooks = await knex('merchant_webhook_deliveries').where({ store_id: m.store.id });
    expect(
      hooks
        .filter((h) => h.payload.data.order_id === order.id || h.payload.data.id === order.id)
        .map((h) => h.event_type)
        .sort(),
    ).to.deep.equal(['order.status_changed', 'refund.succeeded']);
  });

  it('a decline leaves the order and its goods; a late success for it changes nothing', async () => {
    const { knex } = deps;
    const order = await paidOrder(knex, 4_000);
    const [made] = await knex('refunds')
      .insert(refundRow(order, 4_000, { status: 'requested', withdraw_goods: true }))
      .returning('id');
    const refundId = Number((made as { id: number }).id);
    const declined = await unitOfWork(deps, async (uow) => {
      const refund = await settleRefund(
        uow,
        refundId,
        { status: 'failed', failureReason: 'The provider declined the refund.' },
        'worker',
      );
      await withdrawAfterRefund(deps, uow, refund, { kind: 'provider' }, new Date());
      return refund;
    });
    expect(declined.status).to.equal('failed');
    expect((await knex('orders').where('id', order.id).first()).status).to.equal(ORDER_STATUS.COMPLETED);
    expect((await knex('licenses').where('order_id', order.id).first()).status).to.equal('active');
    // A late success for the declined refund is answered as it is.
    const late = await unitOfWork(deps, (uow) =>
      settleRefund(uow, refundId, { status: 'succeeded', providerStatus: 'refunded' }, 'worker'),
    );
    expect(late.status).to.equal('failed');
    expect(await knex('order_status_events').where('order_id', order.id)).to.have.length(0);
  });
});
