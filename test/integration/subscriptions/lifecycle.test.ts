import { expect } from 'chai';
import { Model } from 'objection';
import { Order, Store, Subscription, SubscriptionRenewal } from '../../../db/models';
import { Scheduler } from '../../../shared/scheduler';
import { enqueueDueRenewals, renewalJobId } from '../../../shared/services/subscriptions/due';
import { createStore, merchantToken } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { hostedMethod } from '../payments/support';
import {
  gatewayOf,
  MerchantClient,
  renew,
  subscribeThroughSandbox,
  subscriptionProduct,
  tokenOf,
  useSubscriptionsSuite,
  waitFor,
} from './support';

let phoneSeq = 0;
const nextPhone = (): string => `5000${String(80_000 + (phoneSeq += 1)).padStart(5, '0')}`;

describe('Subscriptions: what a period grants, the scheduler, the buyer’s page', function () {
  this.timeout(60_000);
  const suite = useSubscriptionsSuite();
  let store: Store;

  beforeEach(async () => {
    store = await createStore({ name: 'Lifecycle RP' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
  });

  it('extends a subscription’s license with each renewal and expires it when the subscription lapses', async () => {
    const { monthly } = await subscriptionProduct(store, {
      license_enabled: true,
      license_prefix: 'SUB',
      license_lock_type: 'none',
    });
    const { order, subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    const license = await waitFor('the license to be active', async () => {
      const l = await Subscription.knex()('licenses').where('order_id', order.id).first();
      return l?.status === 'active' ? l : undefined;
    });

    const res = await renew(suite.server, subscription.id);
    expect(res.body.outcome).to.equal('renewed');
    const renewed = await Subscription.query().findById(subscription.id);
    const extended = await Subscription.knex()('licenses').where('id', license.id).first();
    expect(extended.status).to.equal('active');
    expect(new Date(extended.expires_at).toISOString()).to.equal(
      new Date(renewed!.current_period_end!).toISOString(),
    );
    // The renewal order carries no license of its own: the subscription's one is extended.
    expect(
      await Subscription.knex()('licenses').where('order_id', res.body.order_id as number),
    ).to.have.length(0);

    await gatewayOf(suite.deps).declineNextCharges(await tokenOf(suite.deps, subscription.id), 10);
    for (let attempt = 1; attempt <= 4; attempt += 1) await renew(suite.server, subscription.id);
    expect((await Subscription.query().findById(subscription.id))!.status).to.equal('expired');
    const lapsed = await Subscription.knex()('licenses').where('id', license.id).first();
    expect(lapsed.status).to.equal('expired');
  });

  it('queues the FiveM on_renewal commands with each renewal and the on_expiry ones when it lapses', async () => {
    const { monthly } = await subscriptionProduct(store, {}, [
      { command: 'grant {player} vip', run_on: 'purchase' },
      { command: 'extend {player} vip', run_on: 'renewal' },
      { command: 'revoke {player} vip', run_on: 'expiry' },
    ]);
    const { order, subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    const commandsOf = async (orderId: number): Promise<{ kind: string; command: string }[]> =>
      Subscription.knex()('fivem_commands')
        .where('order_id', orderId)
        .orderBy('id')
        .select('kind', 'command');
    await waitFor('the purchase command', async () =>
      (await commandsOf(order.id)).length > 0 ? true : undefined,
    );

    const res = await renew(suite.server, subscription.id);
    const renewalOrder = res.body.order_id as number;
    const onRenewal = await waitFor('the renewal command', async () => {
      const rows = await commandsOf(renewalOrder);
      return rows.length > 0 ? rows : undefined;
    });
    expect(onRenewal).to.deep.equal([{ kind: 'renewal', command: 'extend license:00ff vip' }]);

    await gatewayOf(suite.deps).declineNextCharges(await tokenOf(suite.deps, subscription.id), 10);
    for (let attempt = 1; attempt <= 4; attempt += 1) await renew(suite.server, subscription.id);
    expect(await commandsOf(order.id)).to.deep.equal([
      { kind: 'purchase', command: 'grant license:00ff vip' },
      { kind: 'expiry', command: 'revoke license:00ff vip' },
    ]);
  });

  it('the scheduler takes a card within the hour before its period ends, not before', async () => {
    const { monthly } = await subscriptionProduct(store);
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    const end = new Date(Date.now() + 2 * 3600_000);
    await Subscription.query().patch({ current_period_end: end }).where('id', subscription.id);
    const jobId = renewalJobId(subscription.id, end, 1);
    await enqueueDueRenewals(suite.deps.knex, new Date(), suite.deps);
    expect(await suite.deps.queues.subscriptions.getJob(jobId)).to.equal(undefined);
    await enqueueDueRenewals(suite.deps.knex, new Date(end.getTime() - 30 * 60_000), suite.deps);
    expect(await suite.deps.queues.subscriptions.getJob(jobId)).to.not.equal(undefined);
  });

  it('renews through the scheduler: two schedulers enqueue one job, and a job retried from the dashboard charges nothing more', async () => {
    const { monthly } = await subscriptionProduct(store);
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    // The period ends now: the scheduler's window has it.
    const end = new Date(Date.now() - 60_000);
    await Subscription.query().patch({ current_period_end: end }).where('id', subscription.id);

    // A second scheduler process: connections of its own, the same queue prefix (closed with the run).
    const other = await isolatedDeps({ QUEUE_PREFIX: suite.deps.config.queuePrefix });
    Model.knex(suite.deps.knex);
    const tick = new Date();
    const ids = await Promise.all([
      new Scheduler(suite.deps).tick('renew-subscriptions', tick),
      new Scheduler(other).tick('renew-subscriptions', tick),
    ]);
    expect(ids[0]).to.equal(ids[1]);
    const renewal = await waitFor('the scheduled renewal to be paid', async () => {
      const r = await SubscriptionRenewal.query().findOne({ subscription_id: subscription.id });
      return r?.status === 'paid' ? r : undefined;
    });
    const token = await tokenOf(suite.deps, subscription.id);
    const charges = async (): Promise<number> =>
      (await Subscription.knex()('sandbox_payments').where({ token }).whereNotNull('idempotency_key')).length;
    expect(await charges()).to.equal(1);

    const job = await suite.deps.queues.subscriptions.getJob(renewalJobId(subscription.id, end, 1));
    expect(job, 'the renewal job').to.not.equal(undefined);
    await waitFor('the job to complete', async () => ((await job!.isCompleted()) ? true : undefined));
    await job!.retry('completed');
    await waitFor('the retried job to complete', async () => {
      const again = await suite.deps.queues.subscriptions.getJob(renewalJobId(subscription.id, end, 1));
      return again && (await again.isCompleted()) && again.attemptsStarted > job!.attemptsStarted
        ? true
        : undefined;
    });
    expect(await charges()).to.equal(1);
    expect(await Order.query().where({ store_id: store.id, source: 'renewal' })).to.have.length(1);
    expect(renewal.order_id).to.be.a('number');
  });

  it('shows the buyer the renewal terms on the payment page, and cancels from the link in the message', async () => {
    const { monthly } = await subscriptionProduct(store);
    const phone = nextPhone();
    const { subscription } = await subscribeThroughSandbox(suite.deps, suite.server, store, monthly, phone);
    const opened = await guestCheckout(
      suite.server,
      store,
      { product_id: monthly.product_id, subscription_plan: monthly.id } as never,
      { customer_phone: nextPhone() },
    );
    const terms = await suite.server.request(`${new URL(opened.paymentUrl).pathname}?lang=en`);
    expect(terms.text).to.include('Renews every month at this price');
    const arabic = await suite.server.request(`${new URL(opened.paymentUrl).pathname}?lang=ar`);
    expect(arabic.text).to.include('يتجدد كل شهر');
    // The widget states it beside the plans too.
    const widget = await suite.server.request('/widget/v1.js');
    expect(widget.text).to.include('renew automatically at the same price');

    const res = await renew(suite.server, subscription.id);
    expect(res.body.outcome).to.equal('renewed');
    const body = await waitFor('the renewal message', async () => {
      const r = await suite.server.request(`/__dev/outbox?to=966${phone}`);
      return (r.body as { messages: { body: string }[] }).messages.find((m) => m.body.includes('renewed'));
    });
    const link = /(http:\/\/\S+\/pay\/subscriptions\/\S+)/.exec(body.body)![1]!;
    const path = new URL(link).pathname;
    const page = await suite.server.request(`${path}?lang=en`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Cancel renewal');
    const cancelled = await suite.server.request(`${path}?lang=en`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(cancelled.status).to.equal(200);
    expect(cancelled.text).to.include('will not renew');
    const sub = await Subscription.query().findById(subscription.id);
    expect(sub).to.include({ status: 'active', cancel_at_period_end: true });
    const forged = await suite.server.request(path.replace(/-[0-9a-f]{32}$/, `-${'0'.repeat(32)}`));
    expect(forged.status).to.equal(404);

    const merchant = new MerchantClient(suite.server, await merchantToken(store));
    const detail = await merchant.request(`/shawarma/subscriptions/${subscription.id}`);
    expect((detail.body.data as { cancel_at_period_end: boolean }).cancel_at_period_end).to.equal(true);
  });
});
