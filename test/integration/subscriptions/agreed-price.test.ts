import { expect } from 'chai';
import { Order, Store, Subscription, SubscriptionRenewal } from '../../../db/models';
import { ProviderUnavailableError, type PaymentProvider } from '../../../shared/providers/types';
import { updateProduct as dashboardUpdateProduct } from '../../../shared/services/catalogue/product-form';
import { operatorActor } from '../../../shared/services/audit';
import { sweepPayments } from '../../../shared/services/payments/sweep';
import { renewSubscription } from '../../../shared/services/subscriptions/renew';
import { createPaymentMethod, createStore, merchantToken } from '../../helpers/builders';
import { randomIp } from '../../helpers/otp';
import { browse, hostedMethod } from '../payments/support';
import {
  MerchantClient,
  outboxBodies,
  renew,
  subscribeThroughSandbox,
  subscriptionProduct,
  SubscriptionProduct,
  tokenOf,
  useSubscriptionsSuite,
  waitFor,
  outboxEntries,
} from './support';

let phoneSeq = 0;
const nextPhone = (): string => `5001${String(20_000 + (phoneSeq += 1)).padStart(5, '0')}`;
const DAY_MS = 86_400_000;

interface SubscriptionView {
  price: string | null;
  currency: string | null;
  next_plan_id: number | null;
  next_price: { price: string; applies_from: string | null } | null;
  plan: { id: number; duration: string };
}

/**
 * A subscriber keeps the price they agreed to (docs/subscriptions.md, "The price a subscriber agreed
 * to"): a rise, by the plan's price or a move to a dearer plan, is announced and charged only from the
 * first renewal a week after the notice; a drop applies at once; cancelling voids the renewal link; a
 * renewal charge whose answer was lost is asked of the provider again by the payment sweep.
 */
describe('Subscriptions: the agreed price, price notices, voided links and lost charges', function () {
  this.timeout(60_000);
  const suite = useSubscriptionsSuite();
  let store: Store;
  let merchant: MerchantClient;

  beforeEach(async () => {
    store = await createStore({ name: 'Agreed Price' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    merchant = new MerchantClient(suite.server, await merchantToken(store));
  });

  async function detail(id: number): Promise<SubscriptionView> {
    const res = await merchant.request(`/shawarma/subscriptions/${id}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as SubscriptionView;
  }

  async function orderTotal(orderId: number): Promise<string> {
    const res = await merchant.request(`/shawarma/orders/${orderId}`);
    expect(res.status, res.text).to.equal(200);
    return (res.body.data as { total: string }).total;
  }

  /** PATCH /shawarma/products/{id} with both plans at the given prices. */
  async function setPlanPrices(p: SubscriptionProduct, monthly: string, yearly: string): Promise<void> {
    const res = await merchant.request(`/shawarma/products/${p.product.id}`, {
      method: 'PATCH',
      json: {
        plans: [
          { id: p.monthly.id, name: 'Monthly', price: monthly, duration: 'monthly', active: true },
          { id: p.yearly.id, name: 'Yearly', price: yearly, duration: 'yearly', active: true },
        ],
      },
    });
    expect(res.status, res.text).to.equal(200);
  }

  it('announces a plan price rise in the buyer’s language and charges the agreed price until a week after the notice', async () => {
    const p = await subscriptionProduct(store);
    const english = nextPhone();
    const arabic = nextPhone();
    const en = await subscribeThroughSandbox(suite.deps, suite.server, store, p.monthly, english);
    const ar = await subscribeThroughSandbox(suite.deps, suite.server, store, p.monthly, arabic);
    // The second buyer checked out in Arabic (Accept-Language: ar is stored on the checkout).
    await Subscription.knex()('checkouts').where('id', ar.order.checkout_id!).update({ locale: 'ar' });

    const noticeAt = Date.now();
    await setPlanPrices(p, '15.00', '100.00');

    // The renewal runs now, inside the notice week: the card is charged the agreed price.
    const first = await renew(suite.server, en.subscription.id);
    expect(first.status, first.text).to.equal(200);
    expect(first.body.outcome).to.equal('renewed');
    expect(await orderTotal(first.body.order_id as number)).to.equal('10.00');
    const charged = await Subscription.knex()('sandbox_payments')
      .where({ token: await tokenOf(suite.deps, en.subscription.id) })
      .whereNotNull('idempotency_key')
      .pluck('amount_minor');
    expect(charged.map(Number)).to.deep.equal([1_000]);

    const notice = await waitFor('the English price notice', async () =>
      (await outboxBodies(suite.server, `966${english}`)).find((b) => b.includes('price of your')),
    );
    expect(notice).to.include('from 10.00 SAR to 15.00 SAR');
    expect(notice).to.match(/from the renewal on \d{4}-\d{2}-\d{2}/);
    const manage = /(http:\/\/\S+\/pay\/subscriptions\/\S+)/.exec(notice)![1]!;
    const page = await suite.server.request(new URL(manage).pathname, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(page.status).to.equal(200);
    expect(page.text).to.include('Cancel renewal').and.include('Your price: 10.00 SAR');
    expect(page.text).to.match(
      /data-next-price>From the first renewal on or after \d{4}-\d{2}-\d{2} the price is 15.00 SAR/,
    );
    const arabicNotice = await waitFor('the Arabic price notice', async () =>
      (await outboxBodies(suite.server, `966${arabic}`)).find((b) => b.includes('سيتغير سعر')),
    );
    expect(arabicNotice).to.include('15.00 SAR').and.include('/pay/subscriptions/');
    expect(arabicNotice).to.not.include('price of your');
    const recorded = await waitFor('the notice recorded as sent', async () => {
      const row = await Subscription.knex()('subscription_price_notices')
        .where('subscription_id', en.subscription.id)
        .whereNotNull('sent_at')
        .first();
      return row as { channels: string[] } | undefined;
    });
    expect(recorded.channels).to.deep.equal(['message', 'email']);
    // The e-mail of the notice, in each buyer's language, naming the new price (docs/email.md).
    for (const [phone, script] of [
      [english, /[A-Za-z]/],
      [arabic, /[\u0600-\u06FF]/],
    ] as const) {
      const mail = await waitFor('the price notice e-mail', async () =>
        (await outboxEntries(suite.server, `buyer${phone}@example.com`)).find((m) =>
          m.body.includes('15.00'),
        ),
      );
      expect(mail.channel).to.equal('email');
      expect(mail.subject).to.match(script);
    }

    const waiting = await detail(en.subscription.id);
    expect(waiting.price).to.equal('10.00');
    expect(waiting.currency).to.equal('SAR');
    expect(waiting.next_price!.price).to.equal('15.00');
    const appliesFrom = new Date(waiting.next_price!.applies_from!).getTime();
    expect(appliesFrom - noticeAt).to.be.at.least(7 * DAY_MS);

    // Eight days on, the next renewal is past the notice week: the new price, and it is the agreed one now.
    const later = await renewSubscription(suite.deps, en.subscription.id, {
      force: true,
      now: new Date(noticeAt + 8 * DAY_MS),
    });
    expect(later.outcome).to.equal('renewed');
    expect(await orderTotal(later.order_id!)).to.equal('15.00');
    const after = await detail(en.subscription.id);
    expect(after.price).to.equal('15.00');
    expect(after.next_price).to.equal(null);
  });

  it('moves a subscriber to a dearer plan only after notice, and applies a price drop at the next renewal with no notice', async () => {
    const p = await subscriptionProduct(store);
    const moving = nextPhone();
    const staying = nextPhone();
    const up = await subscribeThroughSandbox(suite.deps, suite.server, store, p.monthly, moving);
    const down = await subscribeThroughSandbox(suite.deps, suite.server, store, p.monthly, staying);

    const changed = await merchant.request(`/shawarma/subscriptions/${up.subscription.id}/plan`, {
      method: 'POST',
      json: { plan_id: p.yearly.id },
    });
    expect(changed.status, changed.text).to.equal(200);
    const notice = await waitFor('the plan change notice', async () =>
      (await outboxBodies(suite.server, `966${moving}`)).find((b) => b.includes('price of your')),
    );
    expect(notice).to.include('Yearly').and.include('from 10.00 SAR to 100.00 SAR');

    await setPlanPrices(p, '8.00', '100.00');

    const upRenewal = await renew(suite.server, up.subscription.id);
    expect(upRenewal.body.outcome).to.equal('renewed');
    expect(await orderTotal(upRenewal.body.order_id as number)).to.equal('10.00');
    const upAfter = await detail(up.subscription.id);
    expect(upAfter.plan.duration).to.equal('monthly');
    expect(upAfter.next_plan_id).to.equal(p.yearly.id);

    const downRenewal = await renew(suite.server, down.subscription.id);
    expect(downRenewal.body.outcome).to.equal('renewed');
    expect(await orderTotal(downRenewal.body.order_id as number)).to.equal('8.00');
    expect((await detail(down.subscription.id)).price).to.equal('8.00');
    await waitFor('the renewal message', async () =>
      (await outboxBodies(suite.server, `966${staying}`)).find((b) => b.includes('renewed for 8.00')),
    );
    const staysBodies = await outboxBodies(suite.server, `966${staying}`);
    expect(staysBodies.filter((b) => b.includes('price of your'))).to.deep.equal([]);
  });

  it('announces a rise made from the dashboard’s product form too, and charges the agreed price meanwhile', async () => {
    const p = await subscriptionProduct(store);
    const phone = nextPhone();
    const { subscription } = await subscribeThroughSandbox(suite.deps, suite.server, store, p.monthly, phone);
    await dashboardUpdateProduct(suite.deps, operatorActor(store.id), store, p.product.id, {
      name: p.product.name,
      type: 'subscription',
      price_minor: 1_000,
      sale_price_minor: null,
      stock: null,
      description: null,
      active: true,
      codes: [],
      categories: [],
      license: null,
      fivem: [],
      plans: [
        { id: p.monthly.id, name: 'Monthly', price_minor: 1_300, duration: 'monthly' },
        { id: p.yearly.id, name: 'Yearly', price_minor: 10_000, duration: 'yearly' },
      ],
      fields: [{ type: 'text', label: 'Player ID', required: false, options: [] }],
    });
    const notice = await waitFor('the notice', async () =>
      (await outboxBodies(suite.server, `966${phone}`)).find((b) => b.includes('price of your')),
    );
    expect(notice).to.include('from 10.00 SAR to 13.00 SAR').and.include('/pay/subscriptions/');
    const renewal = await renew(suite.server, subscription.id);
    expect(renewal.body.outcome).to.equal('renewed');
    expect(await orderTotal(renewal.body.order_id as number)).to.equal('10.00');
  });

  it('announces a rise once when two price changes race, and never lets a renewal run beside them charge more', async () => {
    const p = await subscriptionProduct(store);
    const phone = nextPhone();
    const { subscription } = await subscribeThroughSandbox(suite.deps, suite.server, store, p.monthly, phone);
    const [, , renewal] = await Promise.all([
      setPlanPrices(p, '12.00', '100.00'),
      setPlanPrices(p, '12.00', '100.00'),
      renew(suite.server, subscription.id),
    ]);
    expect(renewal.body.outcome).to.equal('renewed');
    expect(await orderTotal(renewal.body.order_id as number)).to.equal('10.00');
    const notices = await Subscription.knex()('subscription_price_notices').where(
      'subscription_id',
      subscription.id,
    );
    expect(notices).to.have.length(1);
    await waitFor('the notice', async () =>
      (await outboxBodies(suite.server, `966${phone}`)).find((m) => m.includes('to 12.00 SAR')),
    );
    const bodies = await outboxBodies(suite.server, `966${phone}`);
    expect(bodies.filter((m) => m.includes('price of your'))).to.have.length(1);
  });

  it('voids the renewal link when the subscription is cancelled: the link says so and takes no payment', async () => {
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
    const { monthly } = await subscriptionProduct(store);
    const phone = nextPhone();
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      phone,
      'bank',
    );
    const res = await renew(suite.server, subscription.id);
    expect(res.body).to.deep.equal({ outcome: 'link_sent', order_id: null });
    const link = await waitFor('the renewal link', async () =>
      (await outboxBodies(suite.server, `966${phone}`)).find((b) => b.includes('Renew it')),
    );
    const path = new URL(/(http:\/\/\S+\/pay\/rnw_[0-9a-f]{64})/.exec(link)![1]!).pathname;
    const open = await suite.server.request(path, { headers: { 'X-Forwarded-For': randomIp() } });
    expect(open.status).to.equal(200);

    const cancelled = await merchant.request(`/shawarma/subscriptions/${subscription.id}/cancel`, {
      method: 'POST',
      json: { cancel_at_period_end: true },
    });
    expect(cancelled.status, cancelled.text).to.equal(200);

    const page = await suite.server.request(path, { headers: { 'X-Forwarded-For': randomIp() } });
    expect(page.status).to.equal(410);
    expect(page.text).to.include('This subscription was cancelled: this renewal cannot be paid.');
    const arabic = await suite.server.request(`${path}?lang=ar`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(arabic.status).to.equal(410);
    expect(arabic.text).to.include('تم إلغاء هذا الاشتراك');
    const pay = await browse(suite.server, path, { payment_method: 'bank' });
    expect(pay.status).to.equal(410);
    expect(pay.text).to.include('cannot be paid');
    expect(await Order.query().where({ store_id: store.id, source: 'renewal' })).to.have.length(0);
  });

  it('asks the provider again about a renewal charge whose answer was lost, through the payment sweep: one charge, one order', async () => {
    const { monthly } = await subscriptionProduct(store);
    const { subscription } = await subscribeThroughSandbox(
      suite.deps,
      suite.server,
      store,
      monthly,
      nextPhone(),
    );
    const token = await tokenOf(suite.deps, subscription.id);
    // The sandbox takes the charge, and its answer never comes back (a timeout after sending).
    const sandbox = suite.deps.providers.sandbox;
    const losing: PaymentProvider = Object.create(sandbox) as PaymentProvider;
    losing.chargeSavedToken = async (request, credentials) => {
      await sandbox.chargeSavedToken!(request, credentials);
      throw new ProviderUnavailableError('sandbox', 'timed out waiting for the answer');
    };
    const lossy = { ...suite.deps, providers: { ...suite.deps.providers, sandbox: losing } };
    let lost: unknown = null;
    await renewSubscription(lossy, subscription.id, { force: true }).catch((err: unknown) => {
      lost = err;
    });
    expect(lost).to.be.instanceOf(ProviderUnavailableError);
    const renewal = (await SubscriptionRenewal.query().findOne({ subscription_id: subscription.id }))!;
    expect(renewal.status).to.equal('charging');

    // Its job ran out of tries; a quarter of an hour later the sweep comes by.
    await Subscription.knex()('subscription_renewals')
      .where('id', renewal.id)
      .update({ updated_at: new Date(Date.now() - 15 * 60_000) });
    await Subscription.knex()('payments')
      .where('id', renewal.payment_id!)
      .update({ created_at: new Date(Date.now() - 15 * 60_000) });
    const swept = await sweepPayments(suite.deps.knex, new Date(), suite.deps);

    const paid = await waitFor('the renewal to settle', async () => {
      const row = await SubscriptionRenewal.query().findById(renewal.id);
      return row?.status === 'paid' ? row : undefined;
    });
    expect(swept.renewals).to.be.at.least(1);
    expect(await orderTotal(paid.order_id!)).to.equal('10.00');
    const payment = await Subscription.knex()('payments').where('id', renewal.payment_id!).first();
    expect(payment.status).to.equal('paid');
    const charges = await Subscription.knex()('sandbox_payments')
      .where({ token })
      .whereNotNull('idempotency_key')
      .select('status', 'idempotency_key');
    expect(charges).to.deep.equal([{ status: 'paid', idempotency_key: `renewal-${renewal.id}-1` }]);
  });
});
