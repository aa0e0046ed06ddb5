import http from 'node:http';
import https from 'node:https';
import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import { hmacSha256 } from '../../crypto';
import { Resolver, SsrfRefusedError, systemResolver, vetHost } from './ssrf';

/** Why a delivery attempt failed, as the delivery log shows it (docs/webhooks.md). */
export type FailureReason = 'refused_address' | 'http_status' | 'timeout' | 'connection_error';

/**
 * One attempt at delivering one webhook to a merchant's endpoint.
 *
 * Signature (as Stripe does): `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with
 * the endpoint's secret. The receiver recomputes it over the raw body and rejects old timestamps.
 * A 2xx answer delivers; anything else (status, timeout, connection error) fails the attempt and the
 * queue retries with back-off. A refused address (SSRF) is permanent.
 */

export interface DeliveryOptions {
  resolver?: Resolver;
  /** Tests only: lets deliveries reach a local server on 127.0.0.1. Never set in production wiring. */
  allowPrivateAddresses?: boolean;
  timeoutMs?: number;
  now?: () => Date;
}

export class DeliveryFailedError extends Error {
  constructor(
    message: string,
    readonly responseStatus: number | null,
  ) {
    super(message);
    this.name = 'DeliveryFailedError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${hmacSha256(secret, `${timestamp}.${body}`)}`;
}

interface DeliveryRow {
  id: number;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  status: string;
  url: string | null;
  secret_encrypted: string | null;
}

function post(
  target: URL,
  pinned: { address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<number> {
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        // Connect to the vetted address only: no second DNS answer can redirect the connection.
        lookup: (_host, opts, cb) => {
          if ((opts as { all?: boolean }).all) {
            (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
          } else cb(null, pinned.address, pinned.family);
        },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Delivers `deliveryId` once. Returns 'delivered', 'already' (delivered before) or 'gone' (the endpoint
 * was deleted). Throws DeliveryFailedError to be retried, SsrfRefusedError to stop.
 */
export async function deliverWebhook(
  deps: { knex: Knex; cipher: Cipher },
  deliveryId: number,
  opts: DeliveryOptions = {},
): Promise<'delivered' | 'already' | 'gone'> {
  const { knex } = deps;
  const row = (await knex('merchant_webhook_deliveries as d')
    .leftJoin('merchant_webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('d.id', deliveryId)
    .first(
      'd.id',
      'd.endpoint_id',
      'd.event_id',
      'd.event_type',
      'd.payload',
      'd.status',
      'e.url',
      'e.secret_encrypted',
    )) as DeliveryRow | undefined;
  if (!row || row.url === null || row.secret_encrypted === null) return 'gone';
  if (row.status === 'delivered') return 'already';

  const target = new URL(row.url);
  await knex('merchant_webhook_deliveries').where('id', deliveryId).increment('attempts', 1);
  let pinned: { address: string; family: 4 | 6 };
  try {
    pinned = await vetHost(
      target.hostname,
      opts.resolver ?? systemResolver,
      opts.allowPrivateAddresses === true,
    );
  } catch (err) {
    if (err instanceof SsrfRefusedError) {
      await knex('merchant_webhook_deliveries')
        .where('id', deliveryId)
        .update({
          failure_reason: 'refused_address',
          last_error: err.message.slice(0, 500),
          response_status: null,
        });
    }
    throw err;
  }
  const body = JSON.stringify(row.payload);
  const timestamp = Math.floor((opts.now?.() ?? new Date()).getTime() / 1000);
  const secret = deps.cipher.decrypt(row.secret_encrypted);
  let status: number;
  try {
    status = await post(
      target,
      pinned,
      {
        'Content-Type': 'application/json',
        'User-Agent': 'Matjar-Webhooks/1',
        'X-Signature': signatureHeader(secret, timestamp, body),
        'X-Webhook-Id': row.event_id,
        'X-Webhook-Event': row.event_type,
        'X-Webhook-Delivery': String(row.id),
      },
      body,
      opts.timeoutMs ?? 10_000,
    );
  } catch (err) {
    const message = (err as Error).message.slice(0, 500);
    const reason: FailureReason = /timed out/.test(message) ? 'timeout' : 'connection_error';
    await knex('merchant_webhook_deliveries')
      .where('id', deliveryId)
      .update({ last_error: message, response_status: null, failure_reason: reason });
    throw new DeliveryFailedError(message, null);
  }
  if (status >= 200 && status < 300) {
    await knex('merchant_webhook_deliveries').where('id', deliveryId).update({
      status: 'delivered',
      response_status: status,
      delivered_at: new Date(),
      last_error: null,
      failure_reason: null,
    });
    return 'delivered';
  }
  await knex('merchant_webhook_deliveries')
    .where('id', deliveryId)
    .update({
      response_status: status,
      last_error: `endpoint answered ${status}`,
      failure_reason: 'http_status',
    });
  throw new DeliveryFailedError(`endpoint answered ${status}`, status);
}

/** After the last attempt (or a refusal): the delivery is failed; a retry from the dashboard may still send it. */
export async function markDeliveryFailed(knex: Knex, deliveryId: number, reason: string): Promise<void> {
  await knex('merchant_webhook_deliveries')
    .where('id', deliveryId)
    .whereNot('status', 'delivered')
    .update({ status: 'failed', last_error: reason.slice(0, 500) });
}
