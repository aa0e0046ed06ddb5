import { expect } from 'chai';
import { Order, Store, Subscription, SubscriptionRenewal } from '../../../db/models';
import { addMonths } from '../../../shared/services/licenses/periods';
import { renewSubscriptionsTask } from '../../../shared/services/subscriptions/due';
import { renewSubscription } from '../../../shared/services/subscriptions/renew';
import type { PaymentProvider } from '../../../shared/providers/types';
import { createPaymentMethod, createStore, merchantToken } from '../../helpers/builders';
import { browse, hostedMethod, paymentIdOf, sessionOf } from '../payments/support';
import {
  gatewayOf,
  MerchantClient,
  outboxBodies,
  outboxEntries,
  renew,
  subscribeThroughSandbox,
  subscriptionProduct,
  tokenOf,
  useSubscriptionsSuite,
  waitFor,
} from './support';

let phoneSeq = 0;
const nextPhone = (): string => `5000${String(70_000 + (phoneSeq += 1)).padStart(5, '0')}`;

async function chargesOf(token: string): Promise<{ status: string; idempotency_key: string }[]> {
  return Subscription.knex()('sandbox_payments')
    .where({ token })
    .whereNotNull('idempotency_key')
    .select('status', 'idempotency_key');
}

describe('Subscriptions: renewals by saved card, dunning, links and cancellation', function () {
  this.timeout(60_000);
  const suite = useSubscriptionsSuite();
  let store: Store;
  let merchant: MerchantClient;

  beforeEach(async () => {
    store = await createStore({ name: 'Renewals RP' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    merchant = new MerchantClient(suite.server, await merchantToken(store));
  });

  it('renews a card subscription three periods through the development route, one charge and one order each', async () => {
    const { monthly } = await subscriptionProduct(store);
    const phone = nextPhone();
    const { order, subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      phone,
    );
    // The token is saved, encrypted at rest, never the card.
    expect(subscription.payment_token_encrypted).to.be.a('string').and.not.include('sbx_tok_');
    const token = await tokenOf(suite.deps, subscription.id);
    expect(token).to.match(/^sbx_tok_/);

    const first = await merchant.request(`/shawarma/orders/${order.id}`);
    expect((first.body.data as { subscription_id: number }).subscription_id).to.equal(subscription.id);

    const start = new Date(subscription.current_period_end!);
    const orders: number[] = [];
    for (let period = 1; period <= 3; period += 1) {
      const res = await renew(suite.server, subscription.id);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.outcome).to.equal('renewed');
      expect(res.body.order_id).to.be.a('number');
      orders.push(res.body.order_id as number);
      const detail = await merchant.request(`/shawarma/subscriptions/${subscription.id}`);
      const data = detail.body.data as {
        status: string;
        current_period_end: string;
        plan: { duration: string };
        renewals: { order_id: number }[];
      };
      expect(data.status).to.equal('active');
      expect(data.plan.duration).to.equal('monthly');
      expect(new Date(data.current_period_end).toISOString()).to.equal(
        addMonths(start, period).toISOString(),
      );
      expect(data.renewals.map((r) => r.order_id)).to.deep.equal(orders);
    }
    expect(new Set(orders).size).to.equal(3);
    expect(await chargesOf(token)).to.have.length(3);

    const renewalOrder = await merchant.request(`/shawarma/orders/${orders[2]}`);
    const renewalData = renewalOrder.body.data as {
      subscription_id: number;
      total: string;
      items: unknown[];
    };
    expect(renewalData.subscription_id).to.equal(subscription.id);
    expect(renewalData.total).to.equal('10.00');
    await waitFor('the renewal order to complete', async () => {
      const o = await Order.query().findById(orders[2]!);
      return o?.status === 4 ? o : undefined;
    });
    const messages = await waitFor('three renewal messages', async () => {
      const bodies = (await outboxBodies(suite.server, `966${phone}`)).filter((b) => b.includes('renewed'));
      return bodies.length === 3 ? bodies : undefined;
    });
    expect(messages[0]).to.include('/pay/subscriptions/');
    // And one e-mail a renewal, naming its order (docs/email.md).
    // People read the store's own order numbers (docs/dashboard.md, "Order numbers").
    const numbers = (await suite.deps.knex('orders').whereIn('id', orders).pluck('number')) as number[];
    const mails = await waitFor('three renewal e-mails', async () => {
      const all = await outboxEntries(suite.server, `buyer${phone}@example.com`);
      const renewed = all.filter((m) => numbers.some((n) => `${m.subject} ${m.body}`.includes(`#${n}`)));
      return renewed.length === 3 ? renewed : undefined;
    });
    expect(mails.map((m) => m.channel)).to.deep.equal(['email', 'email', 'email']);
  });

  it('charges a period once when two renewals run at once, and when a renewal is retried after a crash', async () => {
    const { monthly } = await subscriptionProduct(store);
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    const token = await tokenOf(suite.deps, subscription.id);

    const both = await Promise.all([
      renewSubscription(suite.deps, subscription.id, { force: true }),
      renewSubscription(suite.deps, subscription.id, { force: true }),
    ]);
    expect(both.map((r) => r.outcome)).to.deep.equal(['renewed', 'renewed']);
    expect(both[0]!.order_id).to.equal(both[1]!.order_id);
    expect(await chargesOf(token)).to.have.length(1);

    // The worker dies right after the provider charged the card: the retry finds the attempt charging,
    // asks with the same key, and the provider answers the charge it made.
    const sandbox = suite.deps.providers.sandbox;
    const crashing: PaymentProvider = {
      ...sandbox,
      id: 'sandbox',
      fetchPayment: (id, c) => sandbox.fetchPayment(id, c),
      webhookReference: (b) => sandbox.webhookReference(b),
      verifyWebhook: (w, h, c) => sandbox.verifyWebhook(w, h, c),
      createHostedPayment: (r, c) => sandbox.createHostedPayment(r, c),
      chargeSavedToken: async (request, credentials) => {
        await sandbox.chargeSavedToken!(request, credentials);
        throw new Error('worker killed');
      },
    };
    const dying = { ...suite.deps, providers: { ...suite.deps.providers, sandbox: crashing } };
    let crashed: Error | null = null;
    try {
      await renewSubscription(dying, subscription.id, { force: true });
    } catch (err) {
      crashed = err as Error;
    }
    expect(crashed?.message).to.equal('worker killed');
    const charging = await SubscriptionRenewal.query()
      .where({ subscription_id: subscription.id })
      .orderBy('period_start', 'desc')
      .first();
    expect(charging!.status).to.equal('charging');
    const retried = await renewSubscription(suite.deps, subscription.id, { force: true });
    expect(retried.outcome).to.equal('renewed');
    const again = await renewSubscription(suite.deps, subscription.id, {});
    expect(again.outcome).to.equal('not_due');
    expect(await chargesOf(token)).to.have.length(2);
    const renewalOrders = await Order.query().where({ store_id: store.id, source: 'renewal' });
    expect(renewalOrders).to.have.length(2);
  });

  it('walks a declined card from past_due to expired, telling the buyer each time with a link to pay', async () => {
    const { monthly } = await subscriptionProduct(store);
    const phone = nextPhone();
    const { subscription } = await subscribeThroughSandbox(suite.deps, suite.server, store, monthly, phone);
    const declined = await suite.server.request(`/__dev/subscriptions/${subscription.id}/sandbox-card`, {
      method: 'POST',
      json: { decline_next: 10 },
    });
    expect(declined.body).to.deep.equal({ decline_next: 10 });

    const statuses: string[] = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const res = await renew(suite.server, subscription.id);
      expect(res.body).to.deep.equal({ outcome: 'failed', order_id: null });
      statuses.push((await Subscription.query().findById(subscription.id))!.status);
    }
    expect(statuses).to.deep.equal(['past_due', 'past_due', 'past_due', 'expired']);
    const after = await renew(suite.server, subscription.id);
    expect(after.body).to.deep.equal({ outcome: 'not_due', order_id: null });
    expect(await Order.query().where({ store_id: store.id, source: 'renewal' })).to.have.length(0);

    const bodies = await waitFor('three failure messages and the expiry', async () => {
      const all = await outboxBodies(suite.server, `966${phone}`);
      const failed = all.filter((b) => b.includes('could not renew'));
      const expired = all.filter((b) => b.includes('has expired'));
      return failed.length === 3 && expired.length === 1 ? failed : undefined;
    });
    expect(bodies[0]).to.match(/Pay now: http:\/\/[^ ]+\/pay\/rnw_[0-9a-f]{64}/);
    // Each failed charge is e-mailed too, with the same link to pay.
    const mails = await waitFor('three failed-renewal e-mails', async () => {
      const all = await outboxEntries(suite.server, `buyer${phone}@example.com`);
      const failed = all.filter((m) => /\/pay\/rnw_[0-9a-f]{64}/.test(m.body));
      return failed.length === 3 ? failed : undefined;
    });
    expect(mails[0]!.channel).to.equal('email');
    const detail = await merchant.request(`/shawarma/subscriptions/${subscription.id}`);
    expect((detail.body.data as { status: string }).status).to.equal('expired');
  });

  it('sends a bank subscription a renewal link instead of charging', async () => {
    await createPaymentMethod(store, {
      method: 'bank',
      provider: 'bank',
      settings: {
        bank_name: 'Acme Bank',
        account_name: 'Acme LLC',
        account_number: '0001',
        iban: 'SA0000000000000000000001',
      },
    });
    const { product, monthly } = await subscriptionProduct(store);
    const phone = nextPhone();
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      phone,
      'bank',
    );
    expect(subscription.payment_token_encrypted).to.equal(null);
    const res = await renew(suite.server, subscription.id);
    expect(res.body).to.deep.equal({ outcome: 'link_sent', order_id: null });
    const again = await renew(suite.server, subscription.id);
    expect(again.body).to.deep.equal({ outcome: 'link_sent', order_id: null });
    const links = await waitFor('the renewal link', async () => {
      const all = (await outboxBodies(suite.server, `966${phone}`)).filter((b) => b.includes('Renew it'));
      return all.length > 0 ? all : undefined;
    });
    expect(links).to.have.length(1);
    const url = /(http:\/\/\S+\/pay\/rnw_[0-9a-f]{64})/.exec(links[0]!)![1]!;
    const page = await suite.server.request(new URL(url).pathname);
    expect(page.status).to.equal(200);
    expect(page.text).to.include(product.name).and.include('10.00');

    // Unpaid when the period ends: past_due; five days later (the last dunning day): expired.
    const end = new Date(subscription.current_period_end!).getTime();
    await renewSubscriptionsTask(suite.deps.knex, new Date(end + 60_000), suite.deps);
    expect((await Subscription.query().findById(subscription.id))!.status).to.equal('past_due');
    await renewSubscriptionsTask(suite.deps.knex, new Date(end + 5 * 86_400_000 + 60_000), suite.deps);
    expect((await Subscription.query().findById(subscription.id))!.status).to.equal('expired');
    await waitFor('the expiry message', async () =>
      (await outboxBodies(suite.server, `966${phone}`)).find((b) => b.includes('has expired')),
    );
  });

  it('cancels at period end: still active, no renewal order, then cancelled when the period is over', async () => {
    const { monthly } = await subscriptionProduct(store);
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    const cancelled = await merchant.request(`/shawarma/subscriptions/${subscription.id}/cancel`, {
      method: 'POST',
      json: { cancel_at_period_end: true },
    });
    expect(cancelled.status, cancelled.text).to.equal(200);
    const data = cancelled.body.data as { status: string; cancel_at_period_end: boolean };
    expect(data).to.include({ status: 'active', cancel_at_period_end: true });
    const res = await renew(suite.server, subscription.id);
    expect(res.body).to.deep.equal({ outcome: 'not_due', order_id: null });
    expect(await Order.query().where({ store_id: store.id, source: 'renewal' })).to.have.length(0);

    const later = new Date(new Date(subscription.current_period_end!).getTime() + 60_000);
    await renewSubscriptionsTask(suite.deps.knex, later, suite.deps);
    const ended = await Subscription.query().findById(subscription.id);
    expect(ended!.status).to.equal('cancelled');
    expect(ended!.ended_at).to.not.equal(null);

    const now = await merchant.request(`/shawarma/subscriptions/${subscription.id}/cancel`, {
      method: 'POST',
    });
    expect((now.body.data as { status: string }).status).to.equal('cancelled');
  });

  it('records a merchant webhook event for each state change', async () => {
    await Subscription.knex()('merchant_webhook_endpoints').insert({
      store_id: store.id,
      url: 'https://erp.example.test/hooks',
      events: ['subscription.*'],
      secret_encrypted: suite.deps.cipher.encrypt('whsec_test'),
    });
    const { monthly } = await subscriptionProduct(store);
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    expect((await renew(suite.server, subscription.id)).body.outcome).to.equal('renewed');
    await gatewayOf(suite.deps).declineNextCharges(await tokenOf(suite.deps, subscription.id), 1);
    expect((await renew(suite.server, subscription.id)).body.outcome).to.equal('failed');
    const plan = await merchant.request(`/shawarma/subscriptions/${subscription.id}/plan`, {
      method: 'POST',
      json: { plan_id: (await subscriptionProduct(store)).monthly.id },
    });
    expect(plan.status).to.equal(422);
    expect(plan.text).to.include('plan_id');
    const cancelled = await merchant.request(`/shawarma/subscriptions/${subscription.id}/cancel`, {
      method: 'POST',
      json: {},
    });
    expect((cancelled.body.data as { status: string }).status).to.equal('cancelled');
    const types = await waitFor('the events', async () => {
      const rows = (await Subscription.knex()('merchant_webhook_deliveries')
        .where('store_id', store.id)
        .orderBy('id')
        .pluck('event_type')) as string[];
      return rows.includes('subscription.cancelled') ? rows : undefined;
    });
    expect(types).to.include.members([
      'subscription.created',
      'subscription.renewed',
      'subscription.payment_failed',
      'subscription.cancelled',
    ]);

    const metrics = await suite.server.request('/metrics');
    expect(metrics.text).to.match(/subscriptions\{status="cancelled"\} [1-9]/);
    expect(metrics.text).to.match(/subscription_renewal_charges\{outcome="renewed"\} [1-9]/);
    expect(metrics.text).to.match(/subscription_renewal_charges\{outcome="failed"\} [1-9]/);
    expect(metrics.text).to.match(/subscription_renewals_due \d+/);
  });

  it('changes to a plan that costs no more from the next period: the renewal charges it and runs for its duration', async () => {
    const { monthly, yearly } = await subscriptionProduct(store);
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      yearly,
      nextPhone(),
    );
    const changed = await merchant.request(`/shawarma/subscriptions/${subscription.id}/plan`, {
      method: 'POST',
      json: { plan_id: monthly.id },
    });
    expect(changed.status, changed.text).to.equal(200);
    const data = changed.body.data as { next_plan_id: number; plan: { duration: string } };
    expect(data.next_plan_id).to.equal(monthly.id);
    expect(data.plan.duration).to.equal('yearly');

    const res = await renew(suite.server, subscription.id);
    expect(res.body.outcome).to.equal('renewed');
    const detail = await merchant.request(`/shawarma/subscriptions/${subscription.id}`);
    const after = detail.body.data as {
      next_plan_id: number | null;
      plan: { duration: string };
      price: string;
      current_period_end: string;
    };
    expect(after.plan.duration).to.equal('monthly');
    expect(after.next_plan_id).to.equal(null);
    expect(after.price).to.equal('10.00');
    expect(after.current_period_end).to.equal(
      addMonths(new Date(subscription.current_period_end!), 1).toISOString(),
    );
    const order = await merchant.request(`/shawarma/orders/${res.body.order_id as number}`);
    expect((order.body.data as { total: string }).total).to.equal('10.00');
  });

  it('lets the buyer pay a declined renewal by hand through the link: the period is settled and dunning stops', async () => {
    const { monthly } = await subscriptionProduct(store);
    const phone = nextPhone();
    const { subscription } = await subscribeThroughSandbox(suite.deps, suite.server, store, monthly, phone);
    await gatewayOf(suite.deps).declineNextCharges(await tokenOf(suite.deps, subscription.id), 10);
    expect((await renew(suite.server, subscription.id)).body.outcome).to.equal('failed');
    const body = await waitFor('the failure message', async () =>
      (await outboxBodies(suite.server, `966${phone}`)).find((b) => b.includes('could not renew')),
    );
    const link = new URL(/(http:\/\/\S+\/pay\/rnw_[0-9a-f]{64})/.exec(body)![1]!).pathname;
    const chosen = await browse(suite.server, link, { payment_method: 'card' });
    expect(chosen.status, chosen.text).to.equal(303);
    const paymentPage = chosen.headers.get('location')!;
    await sessionOf(paymentIdOf(paymentPage));
    const paid = await browse(suite.server, paymentPage, { outcome: 'paid' });
    expect(paid.status).to.equal(200);
    const settled = await waitFor('the renewal to be settled', async () => {
      const sub = await Subscription.query().findById(subscription.id);
      return sub?.status === 'active' &&
        new Date(sub.current_period_end!).getTime() > new Date(subscription.current_period_end!).getTime()
        ? sub
        : undefined;
    });
    expect(new Date(settled.current_period_end!).toISOString()).to.equal(
      addMonths(new Date(subscription.current_period_end!), 1).toISOString(),
    );
    const renewal = await SubscriptionRenewal.query().findOne({ subscription_id: subscription.id });
    expect(renewal).to.include({ status: 'paid' });
    // The next run is for the next period, not a retry of the settled one.
    const next = await renew(suite.server, subscription.id);
    expect(next.body.outcome).to.equal('failed');
    expect(await Order.query().where({ store_id: store.id, source: 'renewal' })).to.have.length(1);
  });

  it('prices a renewal with the store’s VAT like a new checkout', async () => {
    const taxed = await createStore({ name: 'VAT RP', tax_mode: 'exclusive', tax_rate_bp: 1500 });
    await hostedMethod(suite.deps, taxed, 'card', 'sandbox');
    const { monthly } = await subscriptionProduct(taxed);
    const { order, subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      taxed,
      monthly,
      nextPhone(),
    );
    expect(order.total_minor).to.equal(1_150);
    const res = await renew(suite.server, subscription.id);
    const renewal = await Order.query().findById(res.body.order_id as number);
    expect(renewal).to.include({ subtotal_minor: 1_000, tax_minor: 150, total_minor: 1_150 });
  });
});
