import { hmacSha256 } from '../crypto';
import { formatMoney, parseMoney } from '../money';
import { requiredCredential } from './credentials';
import {
  eventReference,
  paymentMetadata,
  ProviderApi,
  ProviderApiOptions,
  referenceOrRefuse,
  verifySignatureHeader,
} from './http';
import {
  ReceivedWebhook,
  asRecord,
  asString,
  HostedPayment,
  HostedPaymentRequest,
  PaymentProvider,
  ProviderCredentials,
  ProviderPaymentState,
  ProviderUnavailableError,
  WebhookHeaders,
  WebhookReference,
} from './types';

/** apiUrl: https://api.commerce.coinbase.com (COINBASE_API_URL) */
export type CoinbaseOptions = ProviderApiOptions;

/** The API version this adapter's request and answer shapes follow (sent as X-CC-Version). */
export const COINBASE_API_VERSION = '2018-03-22';

/**
 * Charge statuses (the last entry of the charge's timeline). A charge is paid once COMPLETED (confirmed on
 * chain) or RESOLVED (the merchant accepted an under- or overpayment); PENDING means funds were seen but
 * not yet confirmed, so the order waits for the confirmation.
 */
const PAID = new Set(['COMPLETED', 'RESOLVED']);
const FAILED = new Set(['EXPIRED', 'CANCELED', 'FAILED']);

/**
 * Coinbase Commerce hosted charges for cryptocurrency: the customer pays on the charge's `hosted_url`.
 * Requests carry the store's API key in X-CC-Api-Key. Webhooks are signed: X-CC-Webhook-Signature is the
 * hex HMAC-SHA256 of the raw body keyed with the shared webhook secret. The charge is fetched again before
 * anything changes.
 */
export class CoinbaseProvider implements PaymentProvider {
  readonly id = 'coinbase' as const;

  private readonly api: ProviderApi;

  constructor(options: CoinbaseOptions) {
    this.api = new ProviderApi(this.id, options);
  }

  private headers(credentials: ProviderCredentials): Record<string, string> {
    return {
      'X-CC-Api-Key': requiredCredential(credentials, this.id, 'api_key'),
      'X-CC-Version': COINBASE_API_VERSION,
    };
  }

  async createHostedPayment(
    request: HostedPaymentRequest,
    credentials: ProviderCredentials,
  ): Promise<HostedPayment> {
    const { body } = await this.api.request('POST', '/charges', this.headers(credentials), {
      name: request.description.slice(0, 100),
      description: request.description.slice(0, 200),
      pricing_type: 'fixed_price',
      local_price: { amount: formatMoney(request.amountMinor, request.currency), currency: request.currency },
      metadata: paymentMetadata(request),
      redirect_url: request.returnUrl,
      cancel_url: request.returnUrl,
    });
    const charge = asRecord(asRecord(body)?.data);
    const id = asString(charge?.id);
    const url = asString(charge?.hosted_url);
    if (!id || !url)
      throw new ProviderUnavailableError(this.id, 'charge created without an id or hosted_url');
    return { providerPaymentId: id, redirectUrl: url };
  }

  async fetchPayment(
    providerPaymentId: string,
    credentials: ProviderCredentials,
  ): Promise<ProviderPaymentState> {
    const { body } = await this.api.request(
      'GET',
      `/charges/${encodeURIComponent(providerPaymentId)}`,
      this.headers(credentials),
    );
    const charge = asRecord(asRecord(body)?.data);
    const local = asRecord(asRecord(charge?.pricing)?.local);
    const amount = asString(local?.amount);
    const currency = asString(local?.currency);
    const amountMinor = amount === null ? null : parseMoney(amount, currency);
    const timeline = Array.isArray(charge?.timeline) ? charge.timeline.map(asRecord) : [];
    const status = asString(timeline[timeline.length - 1]?.status) ?? 'NEW';
    if (!charge || amountMinor === null || !currency) {
      throw new ProviderUnavailableError(this.id, 'charge answer without pricing.local');
    }
    const mapped = PAID.has(status) ? 'paid' : FAILED.has(status) ? 'failed' : 'pending';
    return {
      providerPaymentId,
      status: mapped,
      amountMinor,
      currency: currency.toUpperCase(),
      providerStatus: status,
      failureReason: mapped === 'failed' ? `charge ${status.toLowerCase()}` : undefined,
    };
  }

  webhookReference(body: unknown): WebhookReference | null {
    return eventReference(asRecord(body)?.event, 'id');
  }

  verifyWebhook(
    webhook: ReceivedWebhook,
    headers: WebhookHeaders,
    credentials: ProviderCredentials,
  ): WebhookReference {
    const secret = requiredCredential(credentials, this.id, 'webhook_secret');
    verifySignatureHeader(this.id, headers, 'x-cc-webhook-signature', hmacSha256(secret, webhook.raw));
    return referenceOrRefuse(this.id, this.webhookReference(webhook.body));
  }
}
