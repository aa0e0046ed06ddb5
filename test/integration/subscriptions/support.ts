import { expect } from 'chai';
import { Order, Product, ProductFivemCommand, ProductPlan, Store, Subscription } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { SandboxGateway } from '../../../shared/providers/sandbox';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { createProduct, merchantToken } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import type { TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import {
  browse,
  completionOf,
  guestInitiate,
  orderOf,
  paymentIdOf,
  paymentsSuite,
  PaymentsSuite,
  sessionOf,
  waitFor,
} from '../payments/support';

export { waitFor };

/** The web server and real workers of every queue a renewal touches (the scheduler's jobs included). */
export function useSubscriptionsSuite(): { readonly deps: Deps; readonly server: TestServer } {
  let suite: PaymentsSuite | null = null;
  let workers: WorkerPool | null = null;
  before(async () => {
    suite = await paymentsSuite({}, { workers: false });
    workers = await WorkerPool.start(suite.deps, {
      registry: processors,
      queues: [
        'payments',
        'fulfilment',
        'licenses',
        'fivem',
        'messages',
        'emails',
        'subscriptions',
        'merchant-webhooks',
        'maintenance',
      ],
    });
  });
  after(async () => {
    await workers?.close(1_000);
    await suite?.close();
  });
  return {
    get deps() {
      return suite!.deps;
    },
    get server() {
      return suite!.server;
    },
  };
}

export interface SubscriptionProduct {
  product: Product;
  monthly: ProductPlan;
  yearly: ProductPlan;
}

/** A subscription product with a monthly plan (10.00) and a yearly one (100.00), optionally licensed. */
export async function subscriptionProduct(
  store: Store,
  overrides: Partial<Product> = {},
  templates: Partial<ProductFivemCommand>[] = [],
): Promise<SubscriptionProduct> {
  const product = await createProduct(store, {
    type: 'subscription',
    price_minor: 1_000,
    fields: [{ type: 'text', label: 'Player ID', required: false }],
    ...overrides,
  });
  const monthly = await ProductPlan.query().insertAndFetch({
    product_id: product.id,
    name: 'Monthly',
    price_minor: 1_000,
    duration: 'monthly',
  });
  const yearly = await ProductPlan.query().insertAndFetch({
    product_id: product.id,
    name: 'Yearly',
    price_minor: 10_000,
    duration: 'yearly',
    position: 1,
  });
  for (const [position, t] of templates.entries()) {
    await ProductFivemCommand.query().insert({
      product_id: product.id,
      command: 'noop',
      require_online: false,
      position,
      ...t,
    });
  }
  return { product, monthly, yearly };
}

/**
 * Buys the plan as a guest through the Embed API and the sandbox page (Pay), as a buyer would; answers
 * the completed order and the subscription fulfilment started.
 */
export async function subscribeThroughSandbox(
  deps: Deps,
  server: TestServer,
  store: Store,
  plan: ProductPlan,
  phone: string,
  method: 'card' | 'bank' = 'card',
): Promise<{ order: Order; subscription: Subscription }> {
  const checkout = await guestCheckout(
    server,
    store,
    { product_id: plan.product_id, fields: { '0': 'license:00ff' }, subscription_plan: plan.id } as never,
    // An address of the buyer's own, so the e-mails of one subscription can be told apart (docs/email.md).
    { customer_phone: phone, customer_email: `buyer${phone}@example.com` },
  );
  const initiated = await guestInitiate(server, store, checkout.checkoutUrl, method);
  expect(initiated.status, initiated.text).to.equal(200);
  let order: Order;
  if (method === 'card') {
    const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
    const session = await sessionOf(paymentIdOf(redirectUrl));
    const page = `${deps.config.publicBaseUrl}/sandbox/checkout/${session.provider_payment_id}`;
    const paid = await browse(server, page, { outcome: 'paid' });
    expect(paid.status).to.equal(303);
    const created = await orderOf(checkout.checkoutId);
    // The subscription is started with the order, in the transaction that marks it paid.
    expect(await Subscription.query().findOne({ order_id: created.id }), 'the subscription').to.not.equal(
      undefined,
    );
    order = await completionOf(created.id);
  } else {
    const pending = await orderOf(checkout.checkoutId);
    const token = await merchantToken(store);
    const confirmed = await server.request(`/shawarma/orders/${pending.id}`, {
      method: 'PUT',
      json: { status: 4 },
      headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-For': randomIp() },
    });
    expect(confirmed.status, confirmed.text).to.equal(200);
    order = await completionOf(pending.id);
  }
  const subscription = await waitFor('the subscription to start', async () =>
    Subscription.query().findOne({ order_id: order.id }),
  );
  return { order, subscription };
}

export function gatewayOf(deps: Deps): SandboxGateway {
  return new SandboxGateway(deps.knex, deps.appSecret, deps.logger);
}

/** The subscription's saved sandbox token, decrypted as the renewal does. */
export async function tokenOf(deps: Deps, subscriptionId: number): Promise<string> {
  const sub = await Subscription.query().findById(subscriptionId);
  return deps.cipher.decrypt(sub!.payment_token_encrypted!);
}

export class MerchantClient {
  constructor(
    private readonly server: TestServer,
    private readonly token: string,
  ) {}

  request(path: string, init: { method?: string; json?: unknown } = {}): Promise<TestResponse> {
    return this.server.request(path, {
      ...init,
      headers: { Authorization: `Bearer ${this.token}`, 'X-Forwarded-For': randomIp() },
    });
  }
}

export function renew(server: TestServer, id: number): Promise<TestResponse> {
  return server.request(`/__dev/subscriptions/${id}/renew`, {
    method: 'POST',
    headers: { 'X-Forwarded-For': randomIp() },
  });
}

/** The outbox messages to the buyer's number, newest first. */
export async function outboxBodies(server: TestServer, to: string): Promise<string[]> {
  const res = await server.request(`/__dev/outbox?to=${to}`, { headers: { 'X-Forwarded-For': randomIp() } });
  return (res.body as { messages: { body: string }[] }).messages.map((m) => m.body);
}

/** The dev outbox's entries for an address or number, newest first (e-mails carry a subject). */
export async function outboxEntries(
  server: TestServer,
  to: string,
): Promise<{ channel: string; body: string; subject?: string }[]> {
  const res = await server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`, {
    headers: { 'X-Forwarded-For': randomIp() },
  });
  return (res.body as { messages: { channel: string; body: string; subject?: string }[] }).messages;
}
