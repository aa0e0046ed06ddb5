import { expect } from 'chai';
import {
  Checkout,
  ORDER_STATUS,
  Order,
  Payment,
  Product,
  Store,
  StorePaymentMethod,
} from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { encryptCredentials } from '../../../shared/providers';
import { processors, ProcessorRegistry } from '../../../workers/processors';
import { createPaymentsProcessor, PaymentsProcessorOptions } from '../../../workers/processors/payments';
import { WorkerPool } from '../../../workers/worker-pool';
import { createPaymentMethod } from '../../helpers/builders';
import { guestCheckout, OpenedCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import type { FakeServer } from '../../helpers/fake-server';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { waitFor } from '../queues/support';

export { waitFor };

const NOWHERE = 'http://127.0.0.1:9';

/**
 * A web server and (when asked) real BullMQ workers on Deps of their own: a Redis prefix of their own,
 * TRUST_PROXY so each request can come from its own address, a short provider timeout, and the fake
 * providers' addresses.
 */
export interface PaymentsSuite {
  deps: Deps;
  server: TestServer;
  workers: WorkerPool | null;
  close(): Promise<void>;
}

export async function paymentsSuite(
  env: NodeJS.ProcessEnv = {},
  opts: { workers?: boolean; payments?: PaymentsProcessorOptions } = {},
): Promise<PaymentsSuite> {
  const deps = await isolatedDeps({
    TRUST_PROXY: '1',
    PAYMENT_PROVIDER_TIMEOUT_MS: '400',
    // The run shares one database: a sweep may pick up another suite's payments. Those must never reach a
    // real provider, so a suite without its own fake points at a port where nothing listens.
    MOYASAR_API_URL: NOWHERE,
    COINBASE_API_URL: NOWHERE,
    ...env,
  });
  const server = await startServer(deps);
  const workers = opts.workers === false ? null : await startWorkers(deps, opts.payments);
  return {
    deps,
    server,
    workers,
    async close() {
      await workers?.close(1_000);
      await server.close();
    },
  };
}

export interface UsePaymentsSuiteOptions {
  /** False: no workers (the default is real workers for the suite's queues). */
  workers?: boolean;
  /** A fake provider API, started before the suite and closed after it; the suite is pointed at it. */
  fake?: { server: FakeServer; urlVariable: 'MOYASAR_API_URL' | 'COINBASE_API_URL' };
}

/** The running suite, as the tests of a describe block that called usePaymentsSuite see it. */
export type RunningPaymentsSuite = Pick<PaymentsSuite, 'deps' | 'server'>;

/**
 * Registers in the calling describe block the hooks its tests share: a PaymentsSuite started before the
 * tests and closed after them (with `fake`, that provider is started first and closed last). The object
 * answered stands for the running suite once the tests run.
 */
export function usePaymentsSuite(opts: UsePaymentsSuiteOptions = {}): RunningPaymentsSuite {
  let running: PaymentsSuite | null = null;
  before(async () => {
    const env: NodeJS.ProcessEnv = {};
    if (opts.fake) {
      await opts.fake.server.start();
      env[opts.fake.urlVariable] = opts.fake.server.url;
    }
    running = await paymentsSuite(env, { workers: opts.workers });
  });
  after(async () => {
    await running?.close();
    await opts.fake?.server.close();
  });
  const current = (): PaymentsSuite => {
    if (!running) throw new Error('the payments suite runs only within its describe block');
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

export function registryWith(payments: PaymentsProcessorOptions = {}): ProcessorRegistry {
  return { ...processors, payments: createPaymentsProcessor(payments) };
}

export async function startWorkers(deps: Deps, payments: PaymentsProcessorOptions = {}): Promise<WorkerPool> {
  return WorkerPool.start(deps, {
    registry: registryWith(payments),
    queues: ['payments', 'fulfilment', 'licenses', 'fivem', 'messages', 'emails'],
  });
}

export async function hostedMethod(
  deps: Deps,
  store: Store,
  method: StorePaymentMethod['method'],
  provider: StorePaymentMethod['provider'],
  credentials: Record<string, string> = {},
  overrides: Partial<StorePaymentMethod> = {},
): Promise<StorePaymentMethod> {
  return createPaymentMethod(store, {
    method,
    provider,
    credentials_encrypted:
      Object.keys(credentials).length > 0 ? encryptCredentials(deps.cipher, credentials) : null,
    ...overrides,
  });
}

export function embedPost(
  server: TestServer,
  store: Store,
  path: string,
  json: unknown,
  token?: string,
): Promise<TestResponse> {
  return server.request(path, {
    method: 'POST',
    json,
    headers: {
      'X-Embed-Key': store.embed_key,
      'X-Forwarded-For': randomIp(),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
  });
}

export function guestInitiate(
  server: TestServer,
  store: Store,
  checkoutUrl: string,
  method: string,
): Promise<TestResponse> {
  return embedPost(server, store, '/api/embed/guest/payment/initiate', {
    checkout_url: checkoutUrl,
    payment_method: method,
  });
}

/** A browser request that does not follow redirects (so a test sees the 302/303 and where it points). */
export function browse(
  server: TestServer,
  url: string,
  form?: Record<string, string>,
): Promise<TestResponse> {
  const path = url.startsWith('http') ? new URL(url).pathname + new URL(url).search : url;
  return server.request(path, {
    method: form ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      'X-Forwarded-For': randomIp(),
      ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
}

export function statusOf(server: TestServer, checkoutUrl: string): Promise<TestResponse> {
  return server.request(`/api/embed/payment/status/${encodeURIComponent(checkoutUrl)}`, {
    headers: { 'X-Forwarded-For': randomIp() },
  });
}

/** A paid sandbox card payment of the checkout's total, written directly. */
export async function insertPaidPayment(checkout: Checkout): Promise<Payment> {
  return Payment.query().insertAndFetch({
    checkout_id: checkout.id,
    store_id: checkout.store_id,
    method: 'card',
    provider: 'sandbox',
    status: 'paid',
    amount_minor: checkout.total_minor,
    currency: checkout.currency,
  });
}

/** Waits for the payment's provider session (the initiate job) and returns the payment. */
export async function sessionOf(paymentId: number, timeoutMs = 10_000): Promise<Payment> {
  return waitFor(
    `payment ${paymentId} to leave pending`,
    async () => {
      const p = await Payment.query().findById(paymentId);
      return p && p.status !== 'pending' ? p : undefined;
    },
    timeoutMs,
  );
}

export async function orderOf(checkoutId: number, timeoutMs = 10_000): Promise<Order> {
  return waitFor(
    `an order for checkout ${checkoutId}`,
    async () => Order.query().findOne({ checkout_id: checkoutId }),
    timeoutMs,
  );
}

/** Waits for the order to complete (fulfilment done) and returns it. */
export async function completionOf(orderId: number): Promise<Order> {
  return waitFor('the order to complete', async () => {
    const o = await Order.query().findById(orderId);
    return o?.status === ORDER_STATUS.COMPLETED ? o : undefined;
  });
}

export interface StartedPayment {
  checkout: OpenedCheckout;
  /** The platform's payment page, as payment/initiate answered it. */
  redirectUrl: string;
  /** The payment once its provider session is open. */
  payment: Payment;
}

/**
 * Opens a guest checkout of `product` (`quantity` units, 1 by default, bought from `phone`), starts paying
 * it with `method` through payment/initiate, and waits for the provider session.
 */
export async function startHostedPayment(
  server: TestServer,
  store: Store,
  product: Product,
  method: string,
  opts: { phone: string; quantity?: number },
): Promise<StartedPayment> {
  const checkout = await guestCheckout(
    server,
    store,
    { product_id: product.id, quantity: opts.quantity ?? 1 },
    { customer_phone: opts.phone },
  );
  const res = await guestInitiate(server, store, checkout.checkoutUrl, method);
  expect(res.status, res.text).to.equal(200);
  const redirectUrl = (res.body.data as { redirect_url: string }).redirect_url;
  const payment = await sessionOf(paymentIdOf(redirectUrl));
  return { checkout, redirectUrl, payment };
}

/** The payment id of a redirect_url issued by payment/initiate (/pay/payments/<id>-<signature>). */
export function paymentIdOf(redirectUrl: string): number {
  const match = /\/pay\/payments\/(\d+)-[0-9a-f]{32}$/.exec(new URL(redirectUrl).pathname);
  expect(match, `not a payment page: ${redirectUrl}`).to.not.equal(null);
  return Number(match?.[1]);
}
