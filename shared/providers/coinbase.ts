import { formatMoney, parseMoney } from '../money';
import { hmacSha256, safeEqual } from '../crypto';
import { providerRequest } from './http';
import {
  asRecord,
  asString,
  headerValue,
  HostedPayment,
  HostedPaymentRequest,
  PaymentProvider,
  ProviderCredentials,
  ProviderPaymentState,
  ProviderRejectedError,
  ProviderUnavailableError,
  WebhookHeaders,
  WebhookReference,
  WebhookSignatureError,
} from './types';

export interface CoinbaseOptions {
  /** https://api.commerce.coinbase.com (COINBASE_API_URL) */
  apiUrl: string;
  timeoutMs: number;
}

/** The API version this adapter's request and answer shapes follow (sent as X-CC-Version). */
export const COINBASE_API_VERSION = '2018-03-22';

/**
 * Charge statuses (the last entry of the charge's timeline). A charge is paid once COMPLETED (confirmed on
 * chain) or RESOLVED (the merchant accepted an under- or overpayment); PENDING means funds were seen but
 * not yet confirmed, so the order waits for the confirmation.
 */
const PAID = new Set(['COMPLETED', 'RESOLVED']);
const FAILED = new Set(['EXPIRED', 'CANCELED', 'FAILED']);

function required(credentials: ProviderCredentials, key: 'api_key' | 'webhook_secret'): string {
  const value = credentials[key];
  if (!value) throw new ProviderRejectedError('coinbase', `the store has no ${key} configured`);
  return value;
}

/**
 * Coinbase Commerce hosted charges for cryptocurrency: the customer pays on the charge's `hosted_url`.
 * Requests carry the store's API key in X-CC-Api-Key. Webhooks are signed: X-CC-Webhook-Signature is the
 * hex HMAC-SHA256 of the raw body keyed with the shared webhook secret. The charge is fetched again before
 * anything changes.
 */
export class CoinbaseProvider implements PaymentProvider {
  readonly id = 'coinbase' as const;

  constructor(private readonly options: CoinbaseOptions) {}

  private headers(credentials: ProviderCredentials): Record<string, string> {
    return { 'X-CC-Api-Key': required(credentials, 'api_key'), 'X-CC-Version': COINBASE_API_VERSION };
  }

  async createHostedPayment(
    request: HostedPaymentRequest,
    credentials: ProviderCredentials,
  ): Promise<HostedPayment> {
    const { body } = await providerRequest({
      provider: this.id,
      method: 'POST',
      url: `${this.options.apiUrl}/charges`,
      headers: this.headers(credentials),
      timeoutMs: this.options.timeoutMs,
      body: {
        name: request.description.slice(0, 100),
        description: request.description.slice(0, 200),
        pricing_type: 'fixed_price',
        local_price: { amount: formatMoney(request.amountMinor), currency: request.currency },
        metadata: {
          payment_id: String(request.paymentId),
          checkout_id: String(request.checkoutId),
          store_id: String(request.storeId),
        },
        redirect_url: request.returnUrl,
        cancel_url: request.returnUrl,
      },
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
    const { body } = await providerRequest({
      provider: this.id,
      method: 'GET',
      url: `${this.options.apiUrl}/charges/${encodeURIComponent(providerPaymentId)}`,
      headers: this.headers(credentials),
      timeoutMs: this.options.timeoutMs,
    });
    const charge = asRecord(asRecord(body)?.data);
    const local = asRecord(asRecord(charge?.pricing)?.local);
    const amount = asString(local?.amount);
    const currency = asString(local?.currency);
    const amountMinor = amount === null ? null : parseMoney(amount);
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
    const event = asRecord(asRecord(body)?.event);
    const eventId = asString(event?.id);
    const type = asString(event?.type);
    const chargeId = asString(asRecord(event?.data)?.id);
    if (!eventId || !type || !chargeId) return null;
    return { eventId, type, providerPaymentId: chargeId };
  }

  parseWebhook(rawBody: string, headers: WebhookHeaders, credentials: ProviderCredentials): WebhookReference {
    const secret = required(credentials, 'webhook_secret');
    const signature = headerValue(headers, 'x-cc-webhook-signature')?.trim().toLowerCase() ?? '';
    if (!safeEqual(signature, hmacSha256(secret, rawBody))) throw new WebhookSignatureError(this.id);
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      throw new WebhookSignatureError(this.id);
    }
    const reference = this.webhookReference(body);
    if (!reference) throw new WebhookSignatureError(this.id);
    return reference;
  }
}
