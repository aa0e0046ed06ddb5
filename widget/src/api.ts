import type { EmbedAnswers, EmbedErrorBody } from './embed-types';

/**
 * The Embed API as the widget uses it: JSON or multipart bodies, the embed key on every call but the
 * public status one, and the spec's back-off after a 429 (1, 2, then 4 s) before giving up.
 */

export type Answer<K extends keyof EmbedAnswers> = EmbedAnswers[K];
export type Product = Answer<'GET /api/embed/product/{productId}'>;
export type Customer = Answer<'POST /api/embed/auth/validate'>['customer'];
export type Coupon = Answer<'POST /api/embed/apply-coupon'>;
export type CheckoutSession = Answer<'POST /api/embed/checkout'>;
export type Initiation = Answer<'POST /api/embed/payment/initiate'>;
export type PaymentStatus = Answer<'GET /api/embed/payment/status/{checkoutUrl}'>;
export type Reveal = Answer<'POST /api/embed/order/reveal'>;
export type MethodId = Product['payment_methods'][number]['id'];

/** Delays before the 1st, 2nd and 3rd retry of a request answered 429 (spec, Limits). */
export const BACKOFF_MS = [1000, 2000, 4000];

export class ApiError extends Error {
  /** 0: the request did not reach the API (offline, blocked, CORS). */
  readonly status: number;
  readonly body: Partial<Omit<EmbedErrorBody, 'success'>>;
  constructor(status: number, body: Partial<Omit<EmbedErrorBody, 'success'>>) {
    super(body.message ?? `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
  get code(): string | undefined {
    return this.body.error_code;
  }
  get fields(): Record<string, string[]> {
    return this.body.errors ?? {};
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class EmbedClient {
  constructor(
    readonly base: string,
    readonly key: string,
    /** The dialog's language: the API's messages and the OTP text follow it (docs/errors.md). */
    readonly lang?: string,
  ) {}

  async call<K extends keyof EmbedAnswers>(
    operation: K,
    path: string,
    body?: Record<string, unknown> | FormData,
    token?: string | null,
    /** Sees the success answer (its caching headers). */
    seen?: (res: Response) => void,
  ): Promise<EmbedAnswers[K]> {
    const method = operation.slice(0, operation.indexOf(' '));
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (!path.startsWith('/api/embed/payment/status/')) headers['X-Embed-Key'] = this.key;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (this.lang) headers['Accept-Language'] = this.lang;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(this.base + path, {
          method,
          headers,
          body: payload,
          credentials: 'omit',
          mode: 'cors',
        });
      } catch {
        throw new ApiError(0, {});
      }
      let json: { success?: boolean; data?: unknown } & Partial<Omit<EmbedErrorBody, 'success'>> = {};
      try {
        json = (await res.json()) as typeof json;
      } catch {
        // not JSON: a proxy's page or an empty body; judged by the status alone
      }
      if (res.ok && json.success === true) {
        seen?.(res);
        return json.data as EmbedAnswers[K];
      }
      // A resend cooldown is the buyer's to wait out; any other 429 is retried with the back-off.
      if (res.status === 429 && json.error_code !== 'COOLDOWN_ACTIVE' && attempt < BACKOFF_MS.length) {
        await sleep(BACKOFF_MS[attempt]);
        continue;
      }
      throw new ApiError(res.status, json);
    }
  }
}
