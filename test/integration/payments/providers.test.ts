import type { ReceivedWebhook } from '../../../shared/providers/types';
import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { bankDetails } from '../../../shared/providers/bank';
import { COINBASE_API_VERSION, CoinbaseProvider } from '../../../shared/providers/coinbase';
import { MoyasarProvider } from '../../../shared/providers/moyasar';
import { payLinkWithAmount } from '../../../shared/providers/paypal';
import {
  SANDBOX_SIGNATURE_HEADER,
  SandboxGateway,
  SandboxProvider,
  signSandboxWebhook,
  sandboxWebhookKey,
} from '../../../shared/providers/sandbox';
import {
  HostedPaymentRequest,
  ProviderRejectedError,
  ProviderUnavailableError,
  WebhookSignatureError,
} from '../../../shared/providers/types';
import { createStore } from '../../helpers/builders';
import { sharedDeps } from '../../helpers/deps';
import { FakeCoinbase } from '../../helpers/fake-coinbase';
import { FakeMoyasar } from '../../helpers/fake-moyasar';

/** A webhook as the receiver hands it to an adapter: the bytes and, when they are JSON, what they hold. */
function received(raw: string): ReceivedWebhook {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  return { raw, body };
}

const REQUEST: HostedPaymentRequest = {
  paymentId: 7,
  checkoutId: 3,
  storeId: 1,
  method: 'card',
  amountMinor: 4_050,
  currency: 'SAR',
  description: 'Acme: E-book x 1',
  returnUrl: 'https://shop.example.test/pay/payments/7-abc?return=1',
};

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an exception');
}

describe('payment provider adapters', () => {
  describe('Moyasar (hosted invoices)', () => {
    const credentials = { secret_key: 'sk_test_good', webhook_secret: 'whsec_moyasar_1' };
    let fake: FakeMoyasar;
    let moyasar: MoyasarProvider;

    beforeEach(async () => {
      fake = await new FakeMoyasar(['sk_test_good']).start();
      moyasar = new MoyasarProvider({ apiUrl: fake.url, timeoutMs: 300 });
    });
    afterEach(() => fake.close());

    it('creates an invoice with HTTP Basic auth, the amount in halalas and our return address', async () => {
      const session = await moyasar.createHostedPayment(REQUEST, credentials);
      const invoice = fake.invoices.get(session.providerPaymentId);
      expect(invoice?.amount).to.equal(4_050);
      expect(invoice?.currency).to.equal('SAR');
      expect(invoice?.success_url).to.equal(REQUEST.returnUrl);
      expect(invoice?.metadata).to.deep.equal({ payment_id: '7', checkout_id: '3', store_id: '1' });
      expect(session.redirectUrl).to.equal(invoice?.url);
      const [request] = fake.requests;
      expect(request.headers.authorization).to.equal(
        `Basic ${Buffer.from('sk_test_good:').toString('base64')}`,
      );
    });

    it('reads the invoice status back: open is pending, paid is paid with its amount, a declined card is failed', async () => {
      const { providerPaymentId: id } = await moyasar.createHostedPayment(REQUEST, credentials);
      expect((await moyasar.fetchPayment(id, credentials)).status).to.equal('pending');

      fake.decline(id, 'Insufficient Funds');
      const declined = await moyasar.fetchPayment(id, credentials);
      expect(declined).to.include({
        status: 'failed',
        failureReason: 'Insufficient Funds',
        providerStatus: 'initiated',
      });

      fake.pay(id);
      expect(await moyasar.fetchPayment(id, credentials)).to.deep.include({
        status: 'paid',
        amountMinor: 4_050,
        currency: 'SAR',
        providerStatus: 'paid',
      });

      const other = await moyasar.createHostedPayment(REQUEST, credentials);
      const invoice = fake.invoices.get(other.providerPaymentId);
      if (invoice) invoice.status = 'expired';
      expect((await moyasar.fetchPayment(other.providerPaymentId, credentials)).status).to.equal('failed');
    });

    it('treats a 5xx and a client timeout as retryable, a refusal (bad key, invalid amount, unknown invoice) as permanent', async () => {
      fake.failNext('5xx');
      expect(await rejection(moyasar.createHostedPayment(REQUEST, credentials))).to.be.instanceOf(
        ProviderUnavailableError,
      );

      fake.failNext('timeout');
      const timeout = await rejection(moyasar.fetchPayment('any', credentials));
      expect(timeout).to.be.instanceOf(ProviderUnavailableError);
      expect(timeout.message).to.contain('no answer within 300 ms');

      const badKey = await rejection(
        moyasar.createHostedPayment(REQUEST, { ...credentials, secret_key: 'sk_test_bad' }),
      );
      expect(badKey).to.be.instanceOf(ProviderRejectedError);
      expect(badKey.message).to.contain('401').and.to.contain('Invalid authorization credentials');
      expect(badKey.message, 'the key never appears in errors').to.not.contain('sk_test_bad');

      const tooSmall = await rejection(
        moyasar.createHostedPayment({ ...REQUEST, amountMinor: 50 }, credentials),
      );
      expect(tooSmall).to.be.instanceOf(ProviderRejectedError);
      expect(tooSmall.message).to.contain('400');

      expect(await rejection(moyasar.fetchPayment('no-such-invoice', credentials))).to.be.instanceOf(
        ProviderRejectedError,
      );
      expect(await rejection(moyasar.createHostedPayment(REQUEST, {}))).to.be.instanceOf(
        ProviderRejectedError,
      );
    });

    it('accepts a webhook only with the configured secret token, compared over the exact body', async () => {
      const { providerPaymentId: id } = await moyasar.createHostedPayment(REQUEST, credentials);
      fake.pay(id);
      const good = fake.webhook(id, 'whsec_moyasar_1', { eventId: 'evt-1' });
      expect(moyasar.verifyWebhook(received(good), {}, credentials)).to.deep.equal({
        eventId: 'evt-1',
        type: 'payment_paid',
        providerPaymentId: id,
      });
      expect(
        thrown(() => moyasar.verifyWebhook(received(fake.webhook(id, 'whsec_wrong')), {}, credentials)),
      ).to.be.instanceOf(WebhookSignatureError);
      const withoutToken = JSON.stringify({ ...JSON.parse(good), secret_token: undefined });
      expect(thrown(() => moyasar.verifyWebhook(received(withoutToken), {}, credentials))).to.be.instanceOf(
        WebhookSignatureError,
      );
      expect(thrown(() => moyasar.verifyWebhook(received('not json'), {}, credentials))).to.be.instanceOf(
        WebhookSignatureError,
      );
    });
  });

  describe('Coinbase Commerce (hosted charges)', () => {
    const credentials = { api_key: 'cb_key_good', webhook_secret: 'cb_shared_secret' };
    let fake: FakeCoinbase;
    let coinbase: CoinbaseProvider;

    beforeEach(async () => {
      fake = await new FakeCoinbase(['cb_key_good']).start();
      coinbase = new CoinbaseProvider({ apiUrl: fake.url, timeoutMs: 300 });
    });
    afterEach(() => fake.close());

    it('creates a fixed-price charge with X-CC-Api-Key and X-CC-Version, priced in the local currency', async () => {
      const session = await coinbase.createHostedPayment({ ...REQUEST, method: 'coinbase' }, credentials);
      const charge = fake.charges.get(session.providerPaymentId);
      expect(charge?.pricing.local).to.deep.equal({ amount: '40.50', currency: 'SAR' });
      expect(charge?.redirect_url).to.equal(REQUEST.returnUrl);
      expect(session.redirectUrl).to.equal(charge?.hosted_url);
      expect(fake.requests[0].headers['x-cc-api-key']).to.equal('cb_key_good');
      expect(fake.requests[0].headers['x-cc-version']).to.equal(COINBASE_API_VERSION);
    });

    it('reads the charge timeline: NEW and PENDING wait, COMPLETED is paid, EXPIRED failed', async () => {
      const { providerPaymentId: id } = await coinbase.createHostedPayment(REQUEST, credentials);
      expect((await coinbase.fetchPayment(id, credentials)).status).to.equal('pending');
      fake.advance(id, 'PENDING');
      expect((await coinbase.fetchPayment(id, credentials)).status).to.equal('pending');
      fake.advance(id, 'COMPLETED');
      expect(await coinbase.fetchPayment(id, credentials)).to.deep.include({
        status: 'paid',
        amountMinor: 4_050,
        currency: 'SAR',
        providerStatus: 'COMPLETED',
      });
      const other = await coinbase.createHostedPayment(REQUEST, credentials);
      fake.advance(other.providerPaymentId, 'EXPIRED');
      expect((await coinbase.fetchPayment(other.providerPaymentId, credentials)).status).to.equal('failed');
    });

    it('treats a 5xx and a timeout as retryable, a bad API key as permanent', async () => {
      fake.failNext('5xx');
      expect(await rejection(coinbase.createHostedPayment(REQUEST, credentials))).to.be.instanceOf(
        ProviderUnavailableError,
      );
      fake.failNext('timeout');
      expect(await rejection(coinbase.fetchPayment('x', credentials))).to.be.instanceOf(
        ProviderUnavailableError,
      );
      const bad = await rejection(
        coinbase.createHostedPayment(REQUEST, { ...credentials, api_key: 'cb_key_bad' }),
      );
      expect(bad).to.be.instanceOf(ProviderRejectedError);
      expect(bad.message).to.contain('No such API key');
    });

    it('verifies X-CC-Webhook-Signature over the raw body: a wrong secret, a changed body or no header are refused', async () => {
      const { providerPaymentId: id } = await coinbase.createHostedPayment(REQUEST, credentials);
      fake.advance(id, 'PENDING', 'COMPLETED');
      const { raw, signature } = fake.webhook(id, 'charge:confirmed', 'cb_shared_secret', {
        eventId: 'evt-cb-1',
      });
      expect(
        coinbase.verifyWebhook(received(raw), { 'x-cc-webhook-signature': signature }, credentials),
      ).to.deep.equal({
        eventId: 'evt-cb-1',
        type: 'charge:confirmed',
        providerPaymentId: id,
      });
      const forged = fake.webhook(id, 'charge:confirmed', 'not-the-secret');
      expect(
        thrown(() =>
          coinbase.verifyWebhook(
            received(forged.raw),
            { 'X-CC-Webhook-Signature': forged.signature },
            credentials,
          ),
        ),
      ).to.be.instanceOf(WebhookSignatureError);
      const changed = raw.replace('charge:confirmed', 'charge:failed');
      expect(
        thrown(() =>
          coinbase.verifyWebhook(received(changed), { 'x-cc-webhook-signature': signature }, credentials),
        ),
      ).to.be.instanceOf(WebhookSignatureError);
      expect(thrown(() => coinbase.verifyWebhook(received(raw), {}, credentials))).to.be.instanceOf(
        WebhookSignatureError,
      );
    });
  });

  describe('sandbox', () => {
    let deps: Deps;
    let sandbox: SandboxProvider;

    before(async () => {
      deps = await sharedDeps();
      sandbox = new SandboxProvider({
        knex: deps.knex,
        appSecret: deps.appSecret,
        publicBaseUrl: deps.config.publicBaseUrl,
      });
    });

    it('keeps its own payments, hosted under PUBLIC_BASE_URL, and reports the customer’s choice', async () => {
      const store = await createStore();
      const session = await sandbox.createHostedPayment({ ...REQUEST, storeId: store.id });
      expect(session.redirectUrl).to.equal(
        `${deps.config.publicBaseUrl}/sandbox/checkout/${session.providerPaymentId}`,
      );
      expect((await sandbox.fetchPayment(session.providerPaymentId)).status).to.equal('pending');

      const gateway = new SandboxGateway(deps.knex, deps.appSecret, deps.logger);
      const decision = await gateway.decide(session.providerPaymentId, 'paid');
      expect(decision.kind).to.equal('decided');
      expect(await sandbox.fetchPayment(session.providerPaymentId)).to.deep.include({
        status: 'paid',
        amountMinor: 4_050,
      });
      // The same choice again is the same event; the other choice is refused.
      const again = await gateway.decide(session.providerPaymentId, 'paid');
      expect(
        again.kind === 'decided' && decision.kind === 'decided' && again.event.id === decision.event.id,
      ).to.equal(true);
      expect((await gateway.decide(session.providerPaymentId, 'failed')).kind).to.equal('conflict');
      expect(await rejection(sandbox.fetchPayment('sbx_unknown'))).to.be.instanceOf(ProviderRejectedError);
    });

    it('signs its webhooks with a key derived from the platform secret, and refuses any other signature', () => {
      const raw = JSON.stringify({
        id: 'evt_1',
        type: 'payment.paid',
        data: { id: 'sbx_1', status: 'paid' },
      });
      const signature = signSandboxWebhook(sandboxWebhookKey(deps.appSecret), raw);
      expect(sandbox.verifyWebhook(received(raw), { [SANDBOX_SIGNATURE_HEADER]: signature })).to.deep.equal({
        eventId: 'evt_1',
        type: 'payment.paid',
        providerPaymentId: 'sbx_1',
      });
      const otherKey = signSandboxWebhook(sandboxWebhookKey('another-secret-another-secret-0002'), raw);
      expect(
        thrown(() => sandbox.verifyWebhook(received(raw), { [SANDBOX_SIGNATURE_HEADER]: otherKey })),
      ).to.be.instanceOf(WebhookSignatureError);
      expect(
        thrown(() =>
          sandbox.verifyWebhook(received(raw.replace('paid', 'fail')), {
            [SANDBOX_SIGNATURE_HEADER]: signature,
          }),
        ),
      ).to.be.instanceOf(WebhookSignatureError);
    });
  });

  describe('PayPal and bank transfer (no provider call)', () => {
    it('fills the amount into a PayPal.me link where its currency allows, and leaves other links alone', () => {
      expect(payLinkWithAmount('https://paypal.me/acme', 4_050, 'USD')).to.equal(
        'https://paypal.me/acme/40.50USD',
      );
      expect(payLinkWithAmount('https://www.paypal.me/acme/', 1_000, 'eur')).to.equal(
        'https://www.paypal.me/acme/10.00EUR',
      );
      // PayPal takes no SAR, and a link with an amount or of another kind is the merchant's own.
      expect(payLinkWithAmount('https://paypal.me/acme', 4_050, 'SAR')).to.equal('https://paypal.me/acme');
      expect(payLinkWithAmount('https://paypal.me/acme/5USD', 4_050, 'USD')).to.equal(
        'https://paypal.me/acme/5USD',
      );
      expect(payLinkWithAmount('https://www.paypal.com/ncp/payment/ABC', 4_050, 'USD')).to.equal(
        'https://www.paypal.com/ncp/payment/ABC',
      );
    });

    it('gives bank details only when all four are configured', () => {
      const details = {
        bank_name: 'Acme Bank',
        account_name: 'Acme LLC',
        account_number: '0001',
        iban: 'SA00',
      };
      expect(bankDetails(details)).to.deep.equal(details);
      expect(bankDetails({ ...details, iban: ' ' })).to.equal(null);
    });
  });
});
