import { expect } from 'chai';
import type { Knex } from 'knex';
import type { OrderStatus, Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';

/** A web server on Deps of its own (a Redis prefix of its own; rate limits off unless asked). */
export interface MerchantSuite {
  deps: Deps;
  server: TestServer;
}

export function useMerchantSuite(env: NodeJS.ProcessEnv = { RATE_LIMITS: 'off' }): MerchantSuite {
  let running: MerchantSuite | null = null;
  before(async () => {
    const deps = await isolatedDeps(env);
    running = { deps, server: await startServer(deps) };
  });
  after(async () => {
    await running?.server.close();
  });
  const current = (): MerchantSuite => {
    if (!running) throw new Error('the merchant suite runs only within its describe block');
    return running;
  };
  return {
    get deps() {
      return current().deps;
    },
    get server() {
      return current().server;
    },
  };
}

export interface MerchantStore {
  store: Store;
  token: string;
}

export async function merchantStore(
  overrides: Omit<Partial<Store>, 'domains' | 'payment_methods'> = {},
): Promise<MerchantStore> {
  const store = await createStore(overrides);
  return { store, token: await merchantToken(store) };
}

export function call(
  server: TestServer,
  token: string | null,
  method: string,
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return server.request(path, {
    method,
    json,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
  });
}

/** The Merchant API envelope: success `{message, data, api, timestamp}`, errors also `error: true`, data null. */
export function expectEnvelope(res: TestResponse, status: number): void {
  expect(res.status, res.text).to.equal(status);
  if (status === 429) {
    expect(Object.keys(res.body)).to.deep.equal(['message']);
    return;
  }
  expect(res.body).to.include.keys('message', 'data', 'api', 'timestamp');
  expect(res.body.api).to.equal('merchant');
  expect(res.body.timestamp).to.be.a('number');
  if (status >= 400) {
    expect(res.body.error, res.text).to.equal(true);
    expect(res.body.data).to.equal(null);
    expect(res.body.message).to.be.a('string').and.not.equal('');
  } else {
    expect(res.body).to.not.have.property('error');
  }
}

export interface SeededOrder {
  id: number;
  /** The store's own number of the order (`orders.number`). */
  number: number;
  itemId: number;
}

/** An order row (with one item) at a given status, for states the API cannot reach on demand. */
export async function seedOrder(
  knex: Knex,
  store: Store,
  product: Product,
  opts: {
    status: OrderStatus;
    quantity?: number;
    totalMinor?: number;
    paymentId?: number | null;
    paymentMethod?: string | null;
    email?: string;
    phone?: string;
    createdAt?: Date;
    planId?: number | null;
    customerId?: number | null;
  },
): Promise<SeededOrder> {
  const quantity = opts.quantity ?? 1;
  const total = opts.totalMinor ?? Number(product.price_minor) * quantity;
  const [order] = await knex('orders')
    .insert({
      store_id: store.id,
      status: opts.status,
      customer_id: opts.customerId ?? null,
      customer_first_name: 'Sara',
      customer_last_name: 'Ali',
      customer_email: opts.email ?? 'sara@example.com',
      customer_country_code: '966',
      customer_phone: opts.phone ?? '500000001',
      subtotal_minor: total,
      total_minor: total,
      currency: store.currency,
      payment_id: opts.paymentId ?? null,
      payment_method: opts.paymentMethod ?? null,
      source: 'embed',
      created_at: opts.createdAt ?? new Date(),
    })
    .returning(['id', 'number']);
  const orderId = Number((order as { id: number }).id);
  const orderNumber = Number((order as { number: number }).number);
  const [item] = await knex('order_items')
    .insert({
      order_id: orderId,
      product_id: product.id,
      plan_id: opts.planId ?? null,
      name: product.name,
      type: product.type,
      quantity,
      unit_price_minor: product.price_minor,
      total_minor: total,
      fields: JSON.stringify({ '0': 'Player42' }),
    })
    .returning('id');
  return { id: orderId, number: orderNumber, itemId: Number((item as { id: number }).id) };
}

export { createProduct };
