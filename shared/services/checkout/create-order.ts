import type { Knex } from 'knex';
import type { Store } from '../../../db/models';
import type { Cipher } from '../../crypto';
import { sha256 } from '../../crypto';
import { ConflictError } from '../../errors';
import { CheckoutDeps, CheckoutInput, createCheckout, type GuestDetails } from './index';

/**
 * POST /shawarma/orders: the merchant makes an order for a customer (the guest checkout's fields).
 * A zero total creates the order at once (`order_id`); otherwise a checkout is opened and its
 * `payment_url` is the payment link the merchant sends the customer (`checkout_url` names it).
 *
 * Idempotency, decided by the database (unique (store_id, scope, request_hash) of idempotency_records):
 * - without a key, the request content: sha256 of the canonical JSON of the validated body and the store.
 *   The same content within 5 minutes answers the same ids and creates nothing (spec, Limits);
 * - with an `Idempotency-Key` header (Stripe's convention), the key decides for 24 hours: the same key
 *   with the same body replays, with a different body is 409. Two keys are two intents, even for the
 *   same content.
 * The first request inserts the record (response empty) and creates; the others find the record and wait
 * for its response, so ten identical requests at once create exactly one checkout. A record whose
 * creation failed is removed, so the request can be sent again. An expired record is taken over by a
 * conditional update (again, one winner). The stored answer is encrypted (it holds the checkout_url, a
 * bearer secret).
 */

export const CONTENT_WINDOW_SECONDS = 5 * 60;
export const KEY_WINDOW_SECONDS = 24 * 3600;
export const KEY_REUSED = 'This Idempotency-Key was already used with a different request body';
export const STILL_PROCESSING = 'An identical request is still being processed; retry shortly';
const WAIT_MS = 15_000;
const POLL_MS = 50;

/** A merchant's order: a checkout's lines for a guest (one declaration of the guest's fields, checkout's). */
export type MerchantOrderBody = CheckoutInput & GuestDetails;

export interface MerchantOrderResult {
  type: 'free_order' | 'payment_required';
  order_id: number | null;
  checkout_id: number | null;
  checkout_url: string;
  payment_url: string | null;
  amount: string;
  subtotal: string;
  discount_amount: string;
  tax_amount: string;
  currency: string;
}

/** JSON with keys sorted at every level: equal content, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function contentHash(storeId: number, body: unknown): string {
  return sha256(`${storeId}\n${canonicalJson(body)}`);
}

interface Claim {
  scope: string;
  requestHash: string;
  contentHash: string;
  ttlSeconds: number;
}

/** Inserts the record, or takes over an expired one; true when this request is the one to create. */
async function claim(knex: Knex, storeId: number, c: Claim): Promise<boolean> {
  const { rows } = await knex.raw<{ rows: { id: number }[] }>(
    `insert into idempotency_records (store_id, scope, request_hash, content_hash, expires_at)
     values (?, ?, ?, ?, now() + make_interval(secs => ?))
     on conflict (store_id, scope, request_hash) do update
        set content_hash = excluded.content_hash, expires_at = excluded.expires_at,
            response = null, resource_type = null, resource_id = null, created_at = now()
      where idempotency_records.expires_at < now()
     returning id`,
    [storeId, c.scope, c.requestHash, c.contentHash, c.ttlSeconds],
  );
  return rows.length > 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function awaitResponse(
  knex: Knex,
  cipher: Cipher,
  storeId: number,
  c: Claim,
): Promise<MerchantOrderResult | 'gone'> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const row = await knex('idempotency_records')
      .where({ store_id: storeId, scope: c.scope, request_hash: c.requestHash })
      .first('content_hash', 'response', 'expires_at');
    if (!row) return 'gone';
    if (row.content_hash !== null && row.content_hash !== c.contentHash) throw new ConflictError(KEY_REUSED);
    if (row.response) {
      return JSON.parse(cipher.decrypt((row.response as { sealed: string }).sealed)) as MerchantOrderResult;
    }
    if (Date.now() > deadline) throw new ConflictError(STILL_PROCESSING);
    await sleep(POLL_MS);
  }
}

export async function createMerchantOrder(
  deps: CheckoutDeps & { cipher: Cipher },
  store: Store,
  body: MerchantOrderBody,
  idempotencyKey?: string,
): Promise<{ created: boolean; data: MerchantOrderResult }> {
  const { knex, cipher } = deps;
  const hash = contentHash(store.id, body);
  const c: Claim = idempotencyKey
    ? {
        scope: 'merchant.orders.key',
        requestHash: sha256(idempotencyKey),
        contentHash: hash,
        ttlSeconds: KEY_WINDOW_SECONDS,
      }
    : { scope: 'merchant.orders', requestHash: hash, contentHash: hash, ttlSeconds: CONTENT_WINDOW_SECONDS };

  for (let round = 0; round < 3; round += 1) {
    if (!(await claim(knex, store.id, c))) {
      const existing = await awaitResponse(knex, cipher, store.id, c);
      if (existing === 'gone') continue; // the first attempt failed and let go: try to claim again
      return { created: false, data: existing };
    }
    let data: MerchantOrderResult;
    try {
      const buyer = {
        customerId: null,
        firstName: body.customer_first_name,
        lastName: body.customer_last_name,
        email: body.customer_email,
        countryCode: body.customer_country_code,
        phone: body.customer_phone,
      };
      const result = await createCheckout(deps, store, buyer, body, [], { source: 'merchant' });
      data = {
        type: result.type,
        order_id: result.type === 'free_order' ? result.order_id : null,
        checkout_id: result.type === 'payment_required' ? result.checkout_id : null,
        checkout_url: result.checkout_url,
        payment_url: result.type === 'payment_required' ? result.payment_url : null,
        amount: result.amount,
        subtotal: result.subtotal,
        discount_amount: result.discount_amount,
        tax_amount: result.tax_amount,
        currency: store.currency,
      };
    } catch (err) {
      await knex('idempotency_records')
        .where({ store_id: store.id, scope: c.scope, request_hash: c.requestHash })
        .whereNull('response')
        .delete();
      throw err;
    }
    await knex('idempotency_records')
      .where({ store_id: store.id, scope: c.scope, request_hash: c.requestHash })
      .update({
        response: JSON.stringify({ sealed: cipher.encrypt(JSON.stringify(data)) }),
        resource_type: data.order_id !== null ? 'order' : 'checkout',
        resource_id: data.order_id ?? data.checkout_id,
      });
    return { created: true, data };
  }
  throw new ConflictError(STILL_PROCESSING);
}
