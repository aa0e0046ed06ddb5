import { expect } from 'chai';
import { ORDER_STATUS, type Product, type Store } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { seedOrder } from '../merchant/support';
import { dashboardForm, dashboardLogin, type DashboardLogin } from './support';

/**
 * Confirming a bank transfer releases the goods, so the support role may do it only once an owner grants
 * it on the staff page (store_members.grants); owners and managers have it by their role.
 */
describe('dashboard: confirming a payment is a permission the owner grants', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let owner: DashboardLogin;
  let manager: DashboardLogin;
  let support: DashboardLogin;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    product = await createProduct(store, { price_minor: 4_000 });
    owner = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'owner');
    manager = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'manager');
    support = await dashboardLogin(deps.knex, deps.appSecret, store.id, 'support');
  });
  after(() => server.close());

  /** A bank-transfer order Under review, its payment initiated (the buyer said they would transfer). */
  async function bankOrder(): Promise<{ orderId: number; paymentId: number }> {
    const [checkout] = await deps
      .knex('checkouts')
      .insert({
        store_id: store.id,
        token_hash: sha256(randomToken()),
        customer_first_name: 'S',
        customer_last_name: 'A',
        customer_email: 's@example.com',
        customer_country_code: '966',
        customer_phone: '500000001',
        product_id: product.id,
        quantity: 1,
        unit_price_minor: 4_000,
        subtotal_minor: 4_000,
        total_minor: 4_000,
        currency: 'SAR',
        status: 'payment_initiated',
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .returning('id');
    const [payment] = await deps
      .knex('payments')
      .insert({
        checkout_id: (checkout as { id: number }).id,
        store_id: store.id,
        method: 'bank',
        provider: 'bank',
        status: 'initiated',
        amount_minor: 4_000,
        currency: 'SAR',
      })
      .returning('id');
    const paymentId = Number((payment as { id: number }).id);
    const order = await seedOrder(deps.knex, store, product, {
      status: ORDER_STATUS.UNDER_REVIEW,
      paymentId,
      paymentMethod: 'bank',
    });
    return { orderId: order.id, paymentId };
  }

  const state = async (orderId: number, paymentId: number) => ({
    order: Number((await deps.knex('orders').where('id', orderId).first('status')).status),
    payment: String((await deps.knex('payments').where('id', paymentId).first('status')).status),
  });
  const move = (who: DashboardLogin, orderId: number, status: number) =>
    server.request(
      `/merchant/orders/${orderId}/status?lang=en`,
      dashboardForm(who, { status: String(status) }),
    );
  const grant = (who: DashboardLogin, memberId: number, on: boolean) =>
    server.request(`/merchant/staff/${memberId}/grants?lang=en`, {
      ...dashboardForm(who, on ? { confirm_payment: '1' } : {}),
      redirect: 'manual',
    });
  const supportMemberId = async () =>
    Number(
      (
        await deps
          .knex('store_members')
          .where({ store_id: store.id, merchant_user_id: support.userId })
          .first('id')
      ).id,
    );

  it('support cannot confirm a bank transfer by default (403, nothing released) and is not offered it', async () => {
    const { orderId, paymentId } = await bankOrder();
    for (const target of [ORDER_STATUS.IN_PROGRESS, ORDER_STATUS.COMPLETED]) {
      const res = await move(support, orderId, target);
      expect(res.status, res.text).to.equal(403);
    }
    expect(await state(orderId, paymentId)).to.deep.equal({
      order: ORDER_STATUS.UNDER_REVIEW,
      payment: 'initiated',
    });
    const page = await server.request(`/merchant/orders/${orderId}?lang=en`, {
      headers: { cookie: support.cookie },
    });
    expect(page.status).to.equal(200);
    expect(page.text).to.not.contain(`name="status" value="${ORDER_STATUS.IN_PROGRESS}"`);
    // A manager confirms by their role.
    const confirmed = await move(manager, orderId, ORDER_STATUS.IN_PROGRESS);
    expect(confirmed.status, confirmed.text).to.equal(200);
    expect(await state(orderId, paymentId)).to.deep.equal({
      order: ORDER_STATUS.IN_PROGRESS,
      payment: 'paid',
    });
    // Moving a paid order on stays support's.
    expect((await move(support, orderId, ORDER_STATUS.COMPLETED)).status).to.equal(200);
  });

  it('the owner grants it on the staff page (audited); support then confirms; revoked, refused again', async () => {
    const memberId = await supportMemberId();
    const staff = await server.request('/merchant/staff?lang=ar', { headers: { cookie: owner.cookie } });
    expect(staff.text).to.contain(`action="/merchant/staff/${memberId}/grants"`);
    expect(staff.text).to.contain('يمكنه تأكيد التحويلات البنكية ومدفوعات PayPal');
    expect(staff.text).to.not.match(new RegExp(`id="grant-confirm-${memberId}"[^>]*checked`));

    // Only an owner hands it out: support cannot grant it to themselves.
    expect((await grant(support, memberId, true)).status).to.equal(403);
    const saved = await grant(owner, memberId, true);
    expect(saved.status).to.equal(303);
    expect(saved.headers.get('location')).to.equal('/merchant/staff?saved=1');
    const after = await server.request('/merchant/staff?lang=en&saved=1', {
      headers: { cookie: owner.cookie },
    });
    expect(after.text).to.match(new RegExp(`id="grant-confirm-${memberId}"[^>]*checked`));
    expect(after.text).to.contain('Permissions saved.');
    const audit = await deps
      .knex('merchant_audit_events')
      .where({ store_id: store.id, action: 'staff.grants_changed' })
      .first();
    expect(audit).to.include({ resource_type: 'store_member', resource_id: memberId });
    expect(audit.actor).to.match(/^dashboard:\+966\d+$/);
    expect(audit.changes).to.deep.equal({ grants: { from: [], to: ['orders.confirm_payment'] } });

    const { orderId, paymentId } = await bankOrder();
    const page = await server.request(`/merchant/orders/${orderId}?lang=en`, {
      headers: { cookie: support.cookie },
    });
    expect(page.text).to.contain(`name="status" value="${ORDER_STATUS.IN_PROGRESS}"`);
    const res = await move(support, orderId, ORDER_STATUS.IN_PROGRESS);
    expect(res.status, res.text).to.equal(200);
    expect(await state(orderId, paymentId)).to.deep.equal({
      order: ORDER_STATUS.IN_PROGRESS,
      payment: 'paid',
    });

    expect((await grant(owner, memberId, false)).status).to.equal(303);
    const next = await bankOrder();
    expect((await move(support, next.orderId, ORDER_STATUS.IN_PROGRESS)).status).to.equal(403);
    expect(await state(next.orderId, next.paymentId)).to.deep.equal({
      order: ORDER_STATUS.UNDER_REVIEW,
      payment: 'initiated',
    });
  });
});
