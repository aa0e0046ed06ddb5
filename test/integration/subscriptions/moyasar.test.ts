import { expect } from 'chai';
import { Store, Subscription, SubscriptionRenewal } from '../../../db/models';
import { givenIdFor } from '../../../shared/providers/moyasar';
import { sweepPayments } from '../../../shared/services/payments/sweep';
import { renewSubscription } from '../../../shared/services/subscriptions/renew';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { FakeMoyasar } from '../../helpers/fake-moyasar';
import { randomIp } from '../../helpers/otp';
import {
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  paymentIdOf,
  sessionOf,
  usePaymentsSuite,
  waitFor,
} from '../payments/support';
import { subscriptionProduct } from './support';

const SECRET_KEY = 'sk_test_subs';
const WEBHOOK_SECRET = 'whsec_subs_moyasar';

/** A subscription paid by card through Moyasar: the card saved as Moyasar's token, renewals charged with it. */
describe('Subscriptions: Moyasar saved cards', function () {
  this.timeout(30_000);
  const moyasar = new FakeMoyasar([SECRET_KEY]);
  const suite = usePaymentsSuite({ fake: { server: moyasar, urlVariable: 'MOYASAR_API_URL' } });
  let store: Store;

  beforeEach(async () => {
    store = await createStore({ name: 'Moyasar Plans' });
    await hostedMethod(suite.deps, store, 'card', 'moyasar', {
      secret_key: SECRET_KEY,
      webhook_secret: WEBHOOK_SECRET,
    });
  });

  /** Buys the monthly plan by card through Moyasar's invoice, the card saved as a token. */
  async function subscribe(phone: string): Promise<{ sub: Subscription; token: string }> {
    const { monthly } = await subscriptionProduct(store);
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: monthly.product_id, subscription_plan: monthly.id } as never,
      { customer_phone: phone },
    );
    const initiated = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
    const invoiceId = (await sessionOf(paymentIdOf(redirectUrl))).provider_payment_id!;
    const paid = moyasar.pay(invoiceId, { saveCard: true });
    const hook = await suite.server.request('/webhooks/moyasar', {
      method: 'POST',
      body: moyasar.webhook(invoiceId, WEBHOOK_SECRET),
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() },
    });
    expect(hook.status).to.equal(200);
    const order = await completionOf((await orderOf(checkout.checkoutId)).id);
    const sub = await waitFor('the subscription', async () =>
      Subscription.query().findOne({ order_id: order.id }),
    );
    return { sub, token: paid.source.token! };
  }

  it('saves the token of the first payment and charges it once per period, the same attempt never twice', async () => {
    const { sub, token } = await subscribe('500061001');
    const paid = { source: { token } };
    expect(sub.provider).to.equal('moyasar');
    expect(suite.deps.cipher.decrypt(sub.payment_token_encrypted!)).to.equal(paid.source.token);

    const first = await renewSubscription(suite.deps, sub.id, { force: true });
    expect(first.outcome).to.equal('renewed');
    const second = await renewSubscription(suite.deps, sub.id, { force: true });
    expect(second.outcome).to.equal('renewed');
    const charges = moyasar.chargesOf(paid.source.token!);
    expect(charges.map((c) => [c.amount, c.status])).to.deep.equal([
      [1_000, 'paid'],
      [1_000, 'paid'],
    ]);
    const renewal = await Subscription.knex()('subscription_renewals')
      .where('subscription_id', sub.id)
      .first();
    expect(charges[0]!.id).to.equal(givenIdFor(`renewal-${renewal.id}-1`));
    // The same attempt made again (a retried job) answers the payment already made.
    const repeat = await suite.deps.providers.moyasar.chargeSavedToken!(
      {
        paymentId: 1,
        storeId: store.id,
        token: paid.source.token!,
        amountMinor: 1_000,
        currency: 'SAR',
        description: 'repeat',
        idempotencyKey: `renewal-${renewal.id}-1`,
        returnUrl: 'http://localhost/return',
      },
      { secret_key: SECRET_KEY },
    );
    expect(repeat).to.include({ providerPaymentId: charges[0]!.id, status: 'paid' });
    expect(moyasar.chargesOf(paid.source.token!)).to.have.length(2);

    // A declined charge: past_due, and the same attempt asked again answers the same payment.
    moyasar.tokens.get(paid.source.token!)!.declineNext = 1;
    const failed = await renewSubscription(suite.deps, sub.id, { force: true });
    expect(failed).to.deep.equal({ outcome: 'failed', order_id: null });
    expect((await Subscription.query().findById(sub.id))!.status).to.equal('past_due');
    const retried = await renewSubscription(suite.deps, sub.id, { force: true });
    expect(retried.outcome).to.equal('renewed');
    expect(moyasar.chargesOf(paid.source.token!).map((c) => c.status)).to.deep.equal([
      'paid',
      'paid',
      'failed',
      'paid',
    ]);
  });

  it('asks Moyasar again about a renewal charge whose answer was lost, through the payment sweep: one payment, settled', async () => {
    const { sub, token } = await subscribe('500061002');
    // Moyasar takes the payment, and the connection drops before its answer arrives.
    moyasar.failWhen('lost', (req) => req.method === 'POST' && req.path === '/v1/payments');
    let lost: unknown = null;
    await renewSubscription(suite.deps, sub.id, { force: true }).catch((err: unknown) => {
      lost = err;
    });
    expect(lost).to.be.instanceOf(Error);
    expect(moyasar.chargesOf(token).map((c) => c.status)).to.deep.equal(['paid']);
    const renewal = (await SubscriptionRenewal.query().findOne({ subscription_id: sub.id }))!;
    expect(renewal.status).to.equal('charging');
    const invoicesBefore = moyasar.invoices.size;

    // A quarter of an hour later the payment sweep comes by; the subscriptions worker asks Moyasar.
    await Subscription.knex()('subscription_renewals')
      .where('id', renewal.id)
      .update({ updated_at: new Date(Date.now() - 15 * 60_000) });
    await Subscription.knex()('payments')
      .where('id', renewal.payment_id!)
      .update({ created_at: new Date(Date.now() - 15 * 60_000) });
    const workers = await WorkerPool.start(suite.deps, { registry: processors, queues: ['subscriptions'] });
    try {
      await sweepPayments(suite.deps.knex, new Date(), suite.deps);
      await waitFor('the renewal to settle', async () => {
        const row = await SubscriptionRenewal.query().findById(renewal.id);
        return row?.status === 'paid' ? row : undefined;
      });
    } finally {
      await workers.close(1_000);
    }
    const charges = moyasar.chargesOf(token);
    expect(charges.map((c) => [c.amount, c.status])).to.deep.equal([[1_000, 'paid']]);
    expect(charges[0]!.id).to.equal(givenIdFor(`renewal-${renewal.id}-1`));
    // No hosted invoice was opened for the renewal's charge.
    expect(moyasar.invoices.size).to.equal(invoicesBefore);
    const payment = await Subscription.knex()('payments').where('id', renewal.payment_id!).first();
    expect(payment).to.include({ status: 'paid', provider_payment_id: charges[0]!.id });
  });
});
