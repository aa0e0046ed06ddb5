import crypto from 'node:crypto';
import { expect } from 'chai';
import { Checkout, Coupon, Customer, Product, Store } from '../../db/models';
import { randomToken, sha256 } from '../../shared/crypto';
import type { TestServer } from './http';
import { randomIp } from './otp';

/** Checkouts for the payments tests: through the real Embed API, or as rows when a test needs a state the API cannot reach quickly. */

export const GUEST_BUYER = {
  customer_first_name: 'Sara',
  customer_last_name: 'Ali',
  customer_email: 'sara@example.com',
  customer_phone: '500009001',
  customer_country_code: '966',
};

export interface OpenedCheckout {
  checkoutUrl: string;
  checkoutId: number;
  paymentUrl: string;
  amount: string;
  paymentMethods: { id: string }[];
}

/** Opens a checkout through POST /api/embed/guest/checkout and checks it needs a payment. */
export async function guestCheckout(
  server: TestServer,
  store: Store,
  body: { product_id: number; quantity?: number; coupon_code?: string; fields?: Record<string, unknown> },
  buyer: Partial<typeof GUEST_BUYER> = {},
): Promise<OpenedCheckout> {
  const res = await server.request('/api/embed/guest/checkout', {
    method: 'POST',
    json: { quantity: 1, ...GUEST_BUYER, ...buyer, ...body },
    headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
  });
  expect(res.status, res.text).to.equal(200);
  const data = res.body.data as {
    type: string;
    checkout_url: string;
    checkout_id: number;
    payment_url: string;
    amount: string;
    payment_methods: { id: string }[];
  };
  expect(data.type).to.equal('payment_required');
  return {
    checkoutUrl: data.checkout_url,
    checkoutId: data.checkout_id,
    paymentUrl: data.payment_url,
    amount: data.amount,
    paymentMethods: data.payment_methods,
  };
}

/**
 * A checkout row written directly (priced as the product's actual price times quantity, no tax), for
 * states the API does not produce on demand: expired, another customer's, a given total.
 */
export async function insertCheckout(
  store: Store,
  product: Product,
  overrides: Partial<Checkout> & { customer?: Customer; coupon?: Coupon } = {},
): Promise<{ checkout: Checkout; checkoutUrl: string }> {
  const { customer, coupon, ...columns } = overrides;
  const checkoutUrl = randomToken(32);
  const quantity = columns.quantity ?? 1;
  const subtotal = product.actualPriceMinor * quantity;
  const checkout = await Checkout.query().insertAndFetch({
    store_id: store.id,
    token_hash: sha256(checkoutUrl),
    customer_id: customer?.id ?? null,
    customer_first_name: customer?.first_name ?? 'Sara',
    customer_last_name: customer?.last_name ?? 'Ali',
    customer_email: customer?.email ?? `buyer-${crypto.randomBytes(3).toString('hex')}@example.com`,
    customer_country_code: customer?.country_code ?? '966',
    customer_phone: customer?.phone ?? '500009001',
    product_id: product.id,
    quantity,
    unit_price_minor: product.actualPriceMinor,
    subtotal_minor: subtotal,
    total_minor: subtotal,
    currency: store.currency,
    coupon_id: coupon?.id ?? null,
    status: 'created',
    expires_at: new Date(Date.now() + 3600_000),
    ...columns,
  });
  return { checkout, checkoutUrl };
}
