import type { Knex } from 'knex';
import { randomToken, safeEqual, sha256 } from '../../crypto';
import { downloadLinksFor } from '../files/entitlement';

/**
 * The goods of a paid order, shown at once to the browser that paid (docs/widget.md, "The goods after
 * paying"): its code keys, license keys and download addresses, and where else they were sent (masked).
 *
 * Who: only a browser holding the checkout's reveal secret. Two kinds, both 256-bit random values of which
 * only the SHA-256 is kept on the checkout and compared in constant time:
 * - the reveal token, given once in the checkout answer (Embed API, store pages' checkout) to the browser
 *   that checked out: `revealGoods(deps, { checkoutUrl, revealToken })`;
 * - the hosted payment page's cookie, set for the first browser that opens one of the checkout's payment
 *   pages while it is unpaid (`claimRevealCookie`), read back by `revealGoodsByCookie`.
 * When: for 30 minutes after the order was placed (`REVEAL_WINDOW_MS`), and only while the order is paid
 * (In progress or Completed): never before payment, never after a refund or cancellation.
 * Anything else is a `hidden` answer naming why; a wrong secret is `not_found`, like an unknown checkout.
 */

export const REVEAL_WINDOW_MS = 30 * 60 * 1000;
const PAID_STATUSES = [3, 4];

export interface RevealDeps {
  knex: Knex;
  appSecret: string;
  config: { publicBaseUrl: string };
}

export interface RevealedItem {
  name: string;
  codes: string[];
  license_keys: string[];
  downloads: { name: string; url: string }[];
}

export type RevealAnswer =
  | {
      state: 'shown';
      order_id: number;
      /** The order's number in its store (#1, #2…). */
      order_number: number;
      items: RevealedItem[];
      /** Goods still being prepared (license keys are made by a job): ask again in a few seconds. */
      pending: boolean;
      /** Where the delivery message and e-mail go, masked. */
      sent_to: { phone: string | null; email: string | null };
      /** When the goods stop being shown here (ISO 8601). */
      until: string;
    }
  | {
      state: 'hidden';
      /** not_paid (no paid order yet), expired (past the window), withdrawn (refunded or cancelled). */
      reason: 'not_paid' | 'expired' | 'withdrawn';
      order_id: number | null;
      order_number: number | null;
    }
  | { state: 'not_found' };

/** A new reveal secret and the hash to keep. */
export function newRevealSecret(): { token: string; hash: string } {
  const token = randomToken(32);
  return { token, hash: sha256(token) };
}

/** Masks all but the last 3 digits of a phone: `+966 ••••••101`. */
export function maskPhoneNumber(countryCode: string, phone: string): string | null {
  const digits = phone.replace(/\D/g, '');
  if (!digits) return null;
  const shown = digits.slice(-3);
  return `+${countryCode.replace(/\D/g, '')} ${'•'.repeat(Math.max(digits.length - 3, 0))}${shown}`;
}

/** Masks an e-mail's local part but its first letter: `h•••@i40.test`. */
export function maskEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  if (at < 1) return null;
  return `${email[0]}${'•'.repeat(Math.min(Math.max(at - 1, 1), 6))}${email.slice(at)}`;
}

interface CheckoutRow {
  id: number;
  reveal_token_hash: string | null;
  reveal_cookie_hash: string | null;
}

/** The widget and the store pages' checkout: the checkout's URL and the reveal token it gave this browser. */
export async function revealGoods(
  deps: RevealDeps,
  secret: { checkoutUrl: string; revealToken: string; storeId?: number },
  now: Date = new Date(),
): Promise<RevealAnswer> {
  if (!secret.checkoutUrl || !secret.revealToken) return { state: 'not_found' };
  const q = deps
    .knex('checkouts')
    .where('token_hash', sha256(secret.checkoutUrl))
    .first<CheckoutRow | undefined>('id', 'reveal_token_hash', 'reveal_cookie_hash');
  if (secret.storeId !== undefined) q.where('store_id', secret.storeId);
  const checkout = await q;
  const presented = sha256(secret.revealToken);
  // Compared in constant time; a checkout without a token (made before tokens, or a renewal) matches none.
  if (!checkout || !safeEqual(presented, checkout.reveal_token_hash ?? '')) return { state: 'not_found' };
  return goodsOf(deps, checkout.id, now);
}

/** The hosted payment page: the checkout (from its payment) and the cookie's token. */
export async function revealGoodsByCookie(
  deps: RevealDeps,
  checkoutId: number,
  cookieToken: string | undefined,
  now: Date = new Date(),
): Promise<RevealAnswer> {
  if (!cookieToken) return { state: 'not_found' };
  const checkout = await deps
    .knex('checkouts')
    .where('id', checkoutId)
    .first<CheckoutRow | undefined>('id', 'reveal_token_hash', 'reveal_cookie_hash');
  if (!checkout || !safeEqual(sha256(cookieToken), checkout.reveal_cookie_hash ?? '')) {
    return { state: 'not_found' };
  }
  return goodsOf(deps, checkout.id, now);
}

/**
 * Binds the checkout to the first browser that opens one of its payment pages while it has no order:
 * returns the token to put in that browser's cookie, or null (already bound, or already paid). One
 * conditional UPDATE, so two browsers opening the page at once bind one of them.
 */
export async function claimRevealCookie(knex: Knex, checkoutId: number): Promise<string | null> {
  const { token, hash } = newRevealSecret();
  const bound = await knex('checkouts')
    .where('id', checkoutId)
    .whereNull('reveal_cookie_hash')
    .whereIn('status', ['created', 'payment_initiated'])
    .whereNotExists(knex('orders').select(knex.raw('1')).whereRaw('orders.checkout_id = checkouts.id'))
    .update({ reveal_cookie_hash: hash });
  return bound === 1 ? token : null;
}

/** The cookie that holds a checkout's hosted-page reveal token (path /pay/, HttpOnly, SameSite=Lax). */
export const revealCookieName = (checkoutId: number): string => `matjar_reveal_${checkoutId}`;

async function goodsOf(deps: RevealDeps, checkoutId: number, now: Date): Promise<RevealAnswer> {
  const order = await deps.knex('orders').where('checkout_id', checkoutId).first<
    | {
        id: number;
        number: number;
        status: number;
        created_at: Date;
        customer_country_code: string;
        customer_phone: string;
        customer_email: string | null;
      }
    | undefined
  >('id', 'number', 'status', 'created_at', 'customer_country_code', 'customer_phone', 'customer_email');
  if (!order) return { state: 'hidden', reason: 'not_paid', order_id: null, order_number: null };
  const ids = { order_id: order.id, order_number: order.number };
  if (order.status === 5 || order.status === 6) return { state: 'hidden', reason: 'withdrawn', ...ids };
  if (!PAID_STATUSES.includes(order.status)) return { state: 'hidden', reason: 'not_paid', ...ids };
  const until = new Date(new Date(order.created_at).getTime() + REVEAL_WINDOW_MS);
  if (now >= until) return { state: 'hidden', reason: 'expired', ...ids };

  const items = (await deps
    .knex('order_items')
    .where('order_id', order.id)
    .orderBy('id')
    .select('id', 'name', 'type', 'quantity')) as {
    id: number;
    name: string;
    type: string;
    quantity: number;
  }[];
  const itemIds = items.map((i) => i.id);
  const [codes, licenses, products] = await Promise.all([
    deps
      .knex('product_codes')
      .whereIn('order_item_id', itemIds)
      .where('status', 'sold')
      .orderBy('id')
      .select<{ order_item_id: number; code: string }[]>('order_item_id', 'code'),
    deps
      .knex('licenses')
      .whereIn('order_item_id', itemIds)
      .whereIn('status', ['generated', 'active'])
      .orderBy([{ column: 'unit' }, { column: 'id' }])
      .select<{ order_item_id: number; key: string }[]>('order_item_id', 'key'),
    deps
      .knex('order_items as oi')
      .join('products as p', 'p.id', 'oi.product_id')
      .whereIn('oi.id', itemIds)
      .select<{ id: number; license_enabled: boolean }[]>('oi.id', 'p.license_enabled'),
  ]);
  let pending = false;
  const revealed: RevealedItem[] = [];
  for (const item of items) {
    const mine = {
      name: item.name,
      codes: codes.filter((c) => c.order_item_id === item.id).map((c) => c.code),
      license_keys: licenses.filter((l) => l.order_item_id === item.id).map((l) => l.key),
      downloads: (await downloadLinksFor(deps, item.id)).map((d) => ({ name: d.name, url: d.url })),
    };
    const licensed = products.some((p) => p.id === item.id && p.license_enabled);
    if (licensed && mine.license_keys.length === 0) pending = true;
    if (item.type === 'code' && mine.codes.length < item.quantity) pending = true;
    if (mine.codes.length + mine.license_keys.length + mine.downloads.length > 0) revealed.push(mine);
  }
  return {
    state: 'shown',
    ...ids,
    items: revealed,
    pending,
    sent_to: {
      phone: maskPhoneNumber(order.customer_country_code, order.customer_phone),
      email: maskEmail(order.customer_email),
    },
    until: until.toISOString(),
  };
}
