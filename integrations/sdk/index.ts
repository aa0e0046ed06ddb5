/**
 * Matjar SDK for Node 20+ (TypeScript). The request and answer types of every operation are generated from
 * the platform's OpenAPI document (./openapi.ts, openapi-typescript) and the calls go through
 * openapi-fetch, so `client.POST('/api/embed/guest/checkout', { body })` is checked against the API at
 * compile time. This file adds what a generator cannot know:
 *
 * - credentials (embed key, merchant token, customer token, FiveM secret) and `Accept-Language`;
 * - an `Idempotency-Key` on every call of an operation that takes one (merchant orders and refunds), so a
 *   retry can never create twice;
 * - retries of 429 and 503 answers that wait what `Retry-After` says, only for requests that are safe to
 *   repeat (GET, HEAD, or a request with an `Idempotency-Key`);
 * - checks of signed answers: `/verify` answers (Ed25519 `X-Signature`) and merchant webhooks
 *   (HMAC-SHA256 `X-Signature: t=...,v1=...`), whose events are typed by the document's `webhooks`.
 *
 * See docs/sdk.md.
 */
import crypto from 'node:crypto';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths, webhooks } from './openapi.js';

export type { components, operations, paths, webhooks } from './openapi.js';

/** A named schema of the document: `Schema<'CheckoutSession'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

type DeliveryBody<Item> = Item extends {
  post: { requestBody: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/**
 * A merchant webhook delivery's body, one member per event of the document's `webhooks` section: a
 * `switch (event.type)` narrows `event.data` to that event's payload.
 */
export type WebhookEvent = { [Type in keyof webhooks]: DeliveryBody<webhooks[Type]> }[keyof webhooks];
/** The name of a merchant webhook event: `'order.paid'`. */
export type WebhookEventType = WebhookEvent['type'];

export interface RetryOptions {
  /** Attempts after the first; default 2. */
  retries?: number;
  /** Longest wait between attempts, in seconds, whatever `Retry-After` says; default 30. */
  maxDelaySeconds?: number;
  /** Wait used when an answer has no `Retry-After`, in seconds; default 1. */
  defaultDelaySeconds?: number;
}

export interface MatjarClientOptions {
  /** PUBLIC_BASE_URL of the platform, e.g. `https://pay.example.com`. */
  baseUrl: string;
  /** The store's public embed key (`emb_pk_...`), sent as `X-Embed-Key` to the Embed API. */
  embedKey?: string;
  /** A Merchant API token, sent as `Authorization: Bearer` to /shawarma. */
  merchantToken?: string;
  /** A customer token (Embed or Storefront sign-in), sent as `Authorization: Bearer` elsewhere. */
  customerToken?: string;
  /** A game server's FiveM secret, sent as `X-FiveM-Secret` to /api/fivem. */
  fiveMSecret?: string;
  /** Language of messages meant for people. */
  language?: 'ar' | 'en';
  retry?: RetryOptions;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
}

/** Operations that take an `Idempotency-Key` header (the document's `IdempotencyKey` parameter). */
export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set([
  'POST /shawarma/orders',
  'POST /shawarma/orders/{id}/refunds',
]);

/** A fresh key for one logical request: send the same one again to retry it. */
export const newIdempotencyKey = (): string => crypto.randomUUID();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Seconds to wait from a `Retry-After` header: delta-seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

/**
 * A fetch that repeats a 429 or 503 answer after `Retry-After` seconds (capped), for requests that are
 * safe to repeat. The request is cloned before each attempt, so its body can be sent again.
 */
export function retryingFetch(base: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const retries = options.retries ?? 2;
  const maxDelay = options.maxDelaySeconds ?? 30;
  const fallback = options.defaultDelaySeconds ?? 1;
  return async (input, init) => {
    const request = new Request(input, init);
    const repeatable =
      request.method === 'GET' || request.method === 'HEAD' || request.headers.has('Idempotency-Key');
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      if (!repeatable || attempt >= retries || (response.status !== 429 && response.status !== 503)) {
        return response;
      }
      const wait = Math.min(maxDelay, retryAfterSeconds(response.headers.get('Retry-After')) ?? fallback);
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  };
}

function credentials(options: MatjarClientOptions): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const path = schemaPath;
      if (options.language) request.headers.set('Accept-Language', options.language);
      if (path.startsWith('/api/embed') && options.embedKey && !request.headers.has('X-Embed-Key')) {
        request.headers.set('X-Embed-Key', options.embedKey);
      }
      if (path.startsWith('/api/fivem') && options.fiveMSecret) {
        request.headers.set('X-FiveM-Secret', options.fiveMSecret);
      }
      const bearer = path.startsWith('/shawarma') ? options.merchantToken : options.customerToken;
      if (bearer && !request.headers.has('Authorization')) {
        request.headers.set('Authorization', `Bearer ${bearer}`);
      }
      if (IDEMPOTENT_OPERATIONS.has(`${request.method} ${path}`) && !request.headers.has('Idempotency-Key')) {
        request.headers.set('Idempotency-Key', newIdempotencyKey());
      }
      return request;
    },
  };
}

export type MatjarClient = Client<paths>;

/**
 * A client for every interface of the platform. Each call answers `{data, error, response}`: `data` is the
 * 2xx body and `error` any other, both typed by the document.
 */
export function createMatjarClient(options: MatjarClientOptions): MatjarClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(options.fetch ?? globalThis.fetch, options.retry),
  });
  client.use(credentials(options));
  return client;
}

// ------------------------------------------------------------------------------------ signed answers

/**
 * Checks the `X-Signature` of a License API answer: Ed25519 over the exact body, with a key of
 * `GET /verify/public-key` (its `pem`), which the software should pin rather than fetch each time.
 * Read the body with `response.clone().text()` (or `parseAs: 'text'`) so it is the bytes that were signed.
 */
export function verifyLicenseAnswer(body: string, signature: string | null, publicKeyPem: string): boolean {
  if (!signature) return false;
  try {
    return crypto.verify(
      null,
      Buffer.from(body, 'utf8'),
      crypto.createPublicKey(publicKeyPem),
      Buffer.from(signature, 'base64'),
    );
  } catch {
    return false;
  }
}

export interface WebhookCheck {
  /** The raw request body, exactly as received. */
  body: string;
  /** The `X-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
  signature: string | null | undefined;
  /** The endpoint's secret, shown once when the endpoint was created. */
  secret: string;
  /** Oldest accepted signature, in seconds; default 300 (a replay after that is refused). */
  toleranceSeconds?: number;
  /** Current Unix time in seconds; default now. */
  now?: number;
}

/**
 * Checks a merchant webhook delivery and answers its event, or null when it is not one the platform
 * signed: `v1` must be the hex HMAC-SHA256, under the endpoint's secret, of `<t>.<body>` (compared in
 * constant time), `t` recent, and the body a JSON event. A `switch (event.type)` then narrows the payload.
 */
export function verifyWebhook(check: WebhookCheck): WebhookEvent | null {
  const parts = new Map(
    (check.signature ?? '').split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const timestamp = Number(parts.get('t'));
  const given = parts.get('v1') ?? '';
  if (!Number.isInteger(timestamp) || !/^[0-9a-f]{64}$/.test(given)) return null;
  const now = check.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (check.toleranceSeconds ?? 300)) return null;
  const expected = crypto
    .createHmac('sha256', check.secret)
    .update(`${timestamp}.${check.body}`, 'utf8')
    .digest('hex');
  if (!crypto.timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'))) return null;
  try {
    const event: unknown = JSON.parse(check.body);
    // Signed by the platform: its shape is the document's. Only a body that is no event at all is refused.
    return isEventLike(event) ? (event as WebhookEvent) : null;
  } catch {
    return null;
  }
}

const isEventLike = (value: unknown): value is { type: string; data: object } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { type?: unknown }).type === 'string' &&
  typeof (value as { data?: unknown }).data === 'object' &&
  (value as { data?: unknown }).data !== null;
