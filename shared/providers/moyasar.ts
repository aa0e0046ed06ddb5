import { safeEqual } from '../crypto';
import { providerRequest } from './http';
import {
  asRecord,
  asString,
  HostedPayment,
  HostedPaymentRequest,
  PaymentProvider,
  ProviderCredentials,
  ProviderPaymentState,
  ProviderRejectedError,
  ProviderUnavailableError,
  WebhookReference,
  WebhookSignatureError,
} from './types';

export interface MoyasarOptions {
  /** https://api.moyasar.com (MOYASAR_API_URL); paths below are /v1/... */
  apiUrl: string;
  timeoutMs: number;
}

/** Invoice statuses after which the invoice can never be paid through this session. */
const FAILED_INVOICE_STATUSES = new Set(['failed', 'canceled', 'expired', 'voided', 'refunded']);

function required(credentials: ProviderCredentials, key: 'secret_key' | 'webhook_secret'): string {
  const value = credentials[key];
  if (!value) throw new ProviderRejectedError('moyasar', `the store has no ${key} configured`);
  return value;
}

/**
 * Moyasar hosted invoices, used for card, mada, Apple Pay and STC Pay: the customer pays on the invoice's
 * `url`. Requests authenticate with HTTP Basic (the secret key as user name, empty password); amounts are in
 * halalas, which are the platform's minor units. Webhooks carry the merchant's secret token in the body
 * (`secret_token`); it is compared in constant time, and the invoice is then fetched again, because the
 * webhook only tells us which invoice to look at.
 */
export class MoyasarProvider implements PaymentProvider {
  readonly id = 'moyasar' as const;

  constructor(private readonly options: MoyasarOptions) {}

  private auth(credentials: ProviderCredentials): Record<string, string> {
    const token = Buffer.from(`${required(credentials, 'secret_key')}:`, 'utf8').toString('base64');
    return { Authorization: `Basic ${token}` };
  }

  async createHostedPayment(
    request: HostedPaymentRequest,
    credentials: ProviderCredentials,
  ): Promise<HostedPayment> {
    const { body } = await providerRequest({
      provider: this.id,
      method: 'POST',
      url: `${this.options.apiUrl}/v1/invoices`,
      headers: this.auth(credentials),
      timeoutMs: this.options.timeoutMs,
      body: {
        amount: request.amountMinor,
        currency: request.currency,
        description: request.description,
        success_url: request.returnUrl,
        back_url: request.returnUrl,
        // The invoice stops taking payments when the checkout lapses (its reserved keys are released then).
        ...(request.expiresAt ? { expired_at: request.expiresAt.toISOString() } : {}),
        metadata: {
          payment_id: String(request.paymentId),
          checkout_id: String(request.checkoutId),
          store_id: String(request.storeId),
        },
      },
    });
    const invoice = asRecord(body);
    const id = asString(invoice?.id);
    const url = asString(invoice?.url);
    if (!id || !url) throw new ProviderUnavailableError(this.id, 'invoice created without an id or url');
    return { providerPaymentId: id, redirectUrl: url };
  }

  async fetchPayment(
    providerPaymentId: string,
    credentials: ProviderCredentials,
  ): Promise<ProviderPaymentState> {
    const { body } = await providerRequest({
      provider: this.id,
      method: 'GET',
      url: `${this.options.apiUrl}/v1/invoices/${encodeURIComponent(providerPaymentId)}`,
      headers: this.auth(credentials),
      timeoutMs: this.options.timeoutMs,
    });
    const invoice = asRecord(body);
    const status = asString(invoice?.status);
    if (!invoice || !status || typeof invoice.amount !== 'number' || !asString(invoice.currency)) {
      throw new ProviderUnavailableError(this.id, 'invoice answer without status, amount or currency');
    }
    const attempts = Array.isArray(invoice.payments) ? invoice.payments.map(asRecord) : [];
    const last = attempts.length > 0 ? attempts[attempts.length - 1] : null;
    const lastMessage = asString(asRecord(last?.source)?.message) ?? undefined;

    let mapped: ProviderPaymentState['status'] = 'pending';
    let failureReason: string | undefined;
    if (status === 'paid') mapped = 'paid';
    else if (FAILED_INVOICE_STATUSES.has(status)) {
      mapped = 'failed';
      failureReason = lastMessage ?? `invoice ${status}`;
    } else if (status === 'initiated' && asString(last?.status) === 'failed') {
      // A declined attempt leaves the invoice open; the customer is told and may pay again with a new session.
      mapped = 'failed';
      failureReason = lastMessage ?? 'payment declined';
    }
    return {
      providerPaymentId,
      status: mapped,
      amountMinor: invoice.amount,
      currency: String(invoice.currency).toUpperCase(),
      providerStatus: status,
      failureReason,
    };
  }

  webhookReference(body: unknown): WebhookReference | null {
    const event = asRecord(body);
    const eventId = asString(event?.id);
    const type = asString(event?.type);
    const invoiceId = asString(asRecord(event?.data)?.invoice_id);
    if (!eventId || !type || !invoiceId) return null;
    return { eventId, type, providerPaymentId: invoiceId };
  }

  parseWebhook(rawBody: string, _headers: unknown, credentials: ProviderCredentials): WebhookReference {
    const expected = required(credentials, 'webhook_secret');
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      throw new WebhookSignatureError(this.id);
    }
    const token = asString(asRecord(body)?.secret_token);
    if (!token || !safeEqual(token, expected)) throw new WebhookSignatureError(this.id);
    const reference = this.webhookReference(body);
    if (!reference) throw new WebhookSignatureError(this.id);
    return reference;
  }
}
