import { safeEqual } from '../crypto';
import {
  asRecord,
  asString,
  headerValue,
  HostedPaymentRequest,
  HostedProviderId,
  ProviderRejectedError,
  ProviderUnavailableError,
  WebhookHeaders,
  WebhookReference,
  WebhookSignatureError,
} from './types';

export interface ProviderRequest {
  provider: string;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
}

export interface ProviderResponse {
  status: number;
  body: unknown;
}

/** The provider's own explanation of a refusal, whatever shape its error body has; never echoes a request. */
function describeError(body: unknown): string {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const nested =
      record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : null;
    const message = record.message ?? nested?.message;
    const type = record.type ?? nested?.type;
    if (typeof message === 'string') return typeof type === 'string' ? `${type}: ${message}` : message;
  }
  return 'no error description';
}

/**
 * One JSON call to a provider's API with a client timeout. Classifies failures the way the payments jobs
 * act on them: a timeout, a network error, a 5xx or a 429 may succeed later (ProviderUnavailableError,
 * retried with back-off); any other 4xx never will (ProviderRejectedError). Credentials travel only in
 * the headers given and never appear in an error message.
 */
export async function providerRequest(req: ProviderRequest): Promise<ProviderResponse> {
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: req.method,
      headers: {
        Accept: 'application/json',
        ...(req.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...req.headers,
      },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(req.timeoutMs),
    });
  } catch (err) {
    const name = (err as Error).name;
    const reason =
      name === 'TimeoutError' || name === 'AbortError'
        ? `no answer within ${req.timeoutMs} ms`
        : `could not be reached (${(err as Error).message})`;
    throw new ProviderUnavailableError(req.provider, `${req.method} ${new URL(req.url).pathname} ${reason}`);
  }

  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new ProviderUnavailableError(req.provider, `answer cut off (${(err as Error).message})`);
  }
  let body: unknown = null;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }

  const where = `${req.method} ${new URL(req.url).pathname}`;
  if (res.status >= 500 || res.status === 429) {
    throw new ProviderUnavailableError(req.provider, `${where} answered ${res.status}`);
  }
  if (res.status >= 400) {
    throw new ProviderRejectedError(
      req.provider,
      `${where} answered ${res.status}: ${describeError(body)}`,
      res.status,
    );
  }
  if (body === null) {
    // A 2xx without a JSON body is a provider fault that a later attempt may not repeat.
    throw new ProviderUnavailableError(req.provider, `${where} answered ${res.status} without a JSON body`);
  }
  return { status: res.status, body };
}

/** Where a provider's API is, and how long one call to it may take. */
export interface ProviderApiOptions {
  apiUrl: string;
  timeoutMs: number;
}

/** `providerRequest` for one provider's API: paths are relative to its URL and every call has its timeout. */
export class ProviderApi {
  constructor(
    private readonly provider: HostedProviderId,
    private readonly options: ProviderApiOptions,
  ) {}

  request(
    method: ProviderRequest['method'],
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<ProviderResponse> {
    return providerRequest({
      provider: this.provider,
      method,
      url: `${this.options.apiUrl}${path}`,
      headers,
      body,
      timeoutMs: this.options.timeoutMs,
    });
  }
}

/** Our ids, sent with every hosted payment as metadata for the merchant's own reconciliation. */
export function paymentMetadata(request: HostedPaymentRequest): Record<string, string> {
  return {
    payment_id: String(request.paymentId),
    checkout_id: String(request.checkoutId),
    store_id: String(request.storeId),
  };
}

/**
 * The event a webhook names: the event object's `id` and `type`, and the payment id found at
 * `data[paymentKey]`. Null when any of them is missing.
 */
export function eventReference(event: unknown, paymentKey: string): WebhookReference | null {
  const record = asRecord(event);
  const eventId = asString(record?.id);
  const type = asString(record?.type);
  const providerPaymentId = asString(asRecord(record?.data)?.[paymentKey]);
  if (!eventId || !type || !providerPaymentId) return null;
  return { eventId, type, providerPaymentId };
}

/**
 * Checks, in constant time, that a webhook's signature `header` (hex, any case) is `expected`, the
 * signature computed over the raw body. Throws WebhookSignatureError when it is not.
 */
export function verifySignatureHeader(
  provider: HostedProviderId,
  headers: WebhookHeaders,
  header: string,
  expected: string,
): void {
  const signature = headerValue(headers, header)?.trim().toLowerCase() ?? '';
  if (!safeEqual(signature, expected)) throw new WebhookSignatureError(provider);
}

/** The reference a verified webhook names, or the provider's signature error when it names none. */
export function referenceOrRefuse(
  provider: HostedProviderId,
  reference: WebhookReference | null | undefined,
): WebhookReference {
  if (!reference) throw new WebhookSignatureError(provider);
  return reference;
}
