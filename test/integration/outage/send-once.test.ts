import { expect } from 'chai';
import { ORDER_STATUS, Order, Store } from '../../../db/models';
import { randomToken, sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { createMessenger } from '../../../shared/messaging';
import { fulfilOrder, sendOrderDelivery } from '../../../shared/services/fulfilment';
import { createOrderFromCheckout } from '../../../shared/services/orders';
import { deliverOtp, otpMessageKey } from '../../../shared/services/otp/deliver';
import { createProduct, createStore } from '../../helpers/builders';
import { insertCheckout } from '../../helpers/checkouts';
import { isolatedDeps, testConfig } from '../../helpers/deps';
import { FakeTwilio } from '../../helpers/fake-twilio';
import { insertPaidPayment } from '../payments/support';

/**
 * Deterministically: the state a worker killed between handing a message over and
 * recording that it did leaves behind, then the job's retry. The message must not go out again. (The
 * crash test, test/e2e/crash.test.ts, does the same with real kill -9s, which rarely land in this
 * few-millisecond window.)
 */
describe('messages are sent once: a retry after a crash between the send and its record', function () {
  this.timeout(30_000);
  let deps: Deps;
  let store: Store;

  before(async () => {
    deps = await isolatedDeps();
    store = await createStore({ name: 'Once Store' });
  });

  async function otpSession(phone: string, code: string): Promise<{ id: number; encrypted: string }> {
    const encrypted = deps.cipher.encrypt(code);
    const [row] = await deps
      .knex('otp_sessions')
      .insert({
        store_id: store.id,
        channel: 'embed',
        token_hash: sha256(randomToken(32)),
        country_code: '966',
        phone,
        e164: `966${phone}`,
        code_hmac: 'x'.repeat(64),
        code_encrypted: encrypted,
        expires_at: new Date(Date.now() + 300_000),
      })
      .returning<{ id: number }[]>('id');
    return { id: row.id, encrypted };
  }

  const messagesTo = (to: string, purpose: string) =>
    deps.knex('outbound_messages').where({ to, purpose }).select('driver', 'status', 'body');

  it('OTP (outbox driver): the retry finds the code sent and only clears it', async () => {
    const session = await otpSession('500000701', '4821');
    const job = { otpSessionId: session.id, codeVersion: 1, route: 'sms_only' } as const;
    expect(await deliverOtp(deps, job)).to.equal('sent');
    // Killed before the clearing committed: the session still holds its encrypted code.
    await deps.knex('otp_sessions').where({ id: session.id }).update({ code_encrypted: session.encrypted });

    expect(await deliverOtp(deps, job)).to.equal('already-sent');
    expect(await messagesTo('966500000701', 'otp')).to.have.length(1);
    const after = await deps.knex('otp_sessions').where({ id: session.id }).first('code_encrypted');
    expect(after.code_encrypted).to.equal(null);
    // A resend is a new code version, hence a new message.
    await deps
      .knex('otp_sessions')
      .where({ id: session.id })
      .update({ code_version: 2, code_encrypted: deps.cipher.encrypt('9153') });
    expect(await deliverOtp(deps, { ...job, codeVersion: 2 })).to.equal('sent');
    expect(await messagesTo('966500000701', 'otp')).to.have.length(2);
  });

  it('key delivery (outbox driver): the retry finds the delivery sent and only marks the items', async () => {
    const product = await createProduct(store, { name: 'Key', type: 'code' });
    await deps.knex('product_codes').insert({ product_id: product.id, code: `ONCE-${store.id}-1` });
    const { checkout } = await insertCheckout(store, product, { customer_phone: '500000702' });
    const payment = await insertPaidPayment(checkout);
    const { order } = await deps.tx((uow) =>
      createOrderFromCheckout(uow, checkout.id, {
        status: ORDER_STATUS.IN_PROGRESS,
        paymentId: payment.id,
        paymentMethod: 'card',
      }),
    );
    await fulfilOrder(deps, order.id, 'created');
    expect(await sendOrderDelivery(deps, order.id)).to.equal('sent');
    // Killed before the items were marked delivered.
    await deps.knex('order_items').where({ order_id: order.id }).update({ delivered_at: null });

    expect(await sendOrderDelivery(deps, order.id)).to.equal('already-sent');
    const sent = await messagesTo('966500000702', 'order_delivery');
    expect(sent).to.have.length(1);
    expect(sent[0].body).to.contain(`ONCE-${store.id}-1`);
    const items = await deps.knex('order_items').where({ order_id: order.id }).whereNull('delivered_at');
    expect(items).to.have.length(0);
    expect((await Order.query(deps.knex).findById(order.id))?.id).to.equal(order.id);
  });

  describe('twilio driver', () => {
    let twilio: FakeTwilio;

    before(async () => {
      twilio = await FakeTwilio.start();
    });
    after(() => twilio.close());

    const messenger = () =>
      createMessenger(
        testConfig({
          MESSAGING_DRIVER: 'twilio',
          TWILIO_ACCOUNT_SID: twilio.accountSid,
          TWILIO_AUTH_TOKEN: twilio.authToken,
          TWILIO_SMS_FROM: '+15005550006',
          TWILIO_API_BASE_URL: twilio.url,
        }),
        deps.knex,
      );

    it('claims the key before calling Twilio and does not call it again once the key is sent', async () => {
      const message = {
        to: '966500000703',
        body: 'Your verification code is 5521',
        route: 'sms_only',
        purpose: 'otp',
        key: otpMessageKey(990_001, 1),
      } as const;
      const first = await messenger().send(message);
      expect(first.duplicate).to.not.equal(true);
      const second = await messenger().send(message);
      expect(second.duplicate).to.equal(true);
      expect(twilio.requestsTo('966500000703')).to.have.length(1);
      const claim = await deps.knex('message_sends').where({ key: message.key }).first();
      expect(claim).to.include({ status: 'sent', attempts: 1 });
    });

    it('sends again after a crash DURING the Twilio call (the documented window)', async () => {
      const key = otpMessageKey(990_002, 1);
      // What a worker killed while waiting for Twilio's answer leaves: the claim, never marked sent.
      await deps.knex('message_sends').insert({ key, purpose: 'otp', status: 'sending' });
      const result = await messenger().send({
        to: '966500000704',
        body: 'Your verification code is 6612',
        route: 'sms_only',
        purpose: 'otp',
        key,
      });
      expect(result.duplicate).to.not.equal(true);
      expect(twilio.requestsTo('966500000704')).to.have.length(1);
      expect(await deps.knex('message_sends').where({ key }).first()).to.include({
        status: 'sent',
        attempts: 2,
      });
    });
  });
});
