import { expect } from 'chai';
import { Order, Payment, Product, Store } from '../../../db/models';
import { loadConfig } from '../../../shared/config';
import type { Deps } from '../../../shared/deps';
import { SandboxGateway, sandboxWebhookKey, signSandboxWebhook } from '../../../shared/providers/sandbox';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import {
  browse,
  guestInitiate,
  hostedMethod,
  paymentsSuite,
  PaymentsSuite,
  startHostedPayment,
} from './support';

/**
 * The sandbox cannot pay in production (the operator contract, docs/operations.md): a production start
 * without SANDBOX_ENABLED=1 offers no method backed by the sandbox, refuses to initiate one, and answers
 * 404 on every sandbox page, payment-page action and the sandbox webhook, so that no request can mark a
 * payment paid. The sandbox payment used here was opened by a development process on the same database.
 */
describe('sandbox provider in production', function () {
  this.timeout(60_000);
  let dev: PaymentsSuite;
  let prod: Deps;
  let prodServer: TestServer;
  let store: Store;
  let product: Product;
  const domain = 'sandbox-off.example.test';

  before(async () => {
    dev = await paymentsSuite();
    store = await createStore({ name: 'Sandbox Off Store', domains: [domain] });
    await hostedMethod(dev.deps, store, 'card', 'sandbox');
    await hostedMethod(dev.deps, store, 'mada', 'moyasar', {
      secret_key: 'sk_test_x',
      publishable_key: 'pk',
    });
    // Unlimited stock and no code keys: the checkouts this suite leaves open hold nothing that a later
    // suite's expiry sweep would count.
    product = await createProduct(store, { name: 'Prod service', price_minor: 5_000, stock: null });
    prod = await isolatedDeps({ NODE_ENV: 'production', TRUST_PROXY: '1' });
    prodServer = await startServer(prod);
  });
  after(async () => {
    await prodServer?.close();
    await dev?.close();
  });

  const methodIds = (methods: unknown): string[] => (methods as { id: string }[]).map((m) => m.id);

  it('is off in a production config unless SANDBOX_ENABLED=1, and on by default elsewhere', () => {
    const production = { NODE_ENV: 'production', APP_SECRET: 'p'.repeat(32) };
    expect(loadConfig(production).sandboxEnabled).to.equal(false);
    expect(loadConfig({ ...production, SANDBOX_ENABLED: '0' }).sandboxEnabled).to.equal(false);
    expect(loadConfig({ ...production, SANDBOX_ENABLED: '1' }).sandboxEnabled).to.equal(true);
    expect(loadConfig({}).sandboxEnabled, 'development').to.equal(true);
    expect(loadConfig({ NODE_ENV: 'test' }).sandboxEnabled).to.equal(true);
    expect(loadConfig({ SANDBOX_ENABLED: '0' }).sandboxEnabled).to.equal(false);
    expect(prod.config.sandboxEnabled, 'the production app of this suite').to.equal(false);
  });

  it('offers no sandbox-backed method: Embed product, Embed checkout, Storefront product', async () => {
    const embedProduct = await prodServer.request(`/api/embed/product/${product.id}`, {
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(embedProduct.status, embedProduct.text).to.equal(200);
    expect(methodIds((embedProduct.body.data as { payment_methods: unknown }).payment_methods)).to.deep.equal(
      ['mada'],
    );
    const checkout = await guestCheckout(prodServer, store, { product_id: product.id, quantity: 1 });
    expect(methodIds(checkout.paymentMethods), 'the checkout').to.deep.equal(['mada']);
    const storefront = await prodServer.request(`/api/products/${product.id}`, {
      headers: { Host: domain, 'X-Forwarded-For': randomIp() },
    });
    expect(storefront.status, storefront.text).to.equal(200);
    expect(methodIds((storefront.body.data as { payment_methods: unknown }).payment_methods)).to.deep.equal([
      'mada',
    ]);
    // The same store in development offers both.
    const devProduct = await dev.server.request(`/api/embed/product/${product.id}`, {
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(methodIds((devProduct.body.data as { payment_methods: unknown }).payment_methods)).to.deep.equal([
      'card',
      'mada',
    ]);
  });

  it('refuses to initiate a sandbox-backed method (400 in the Embed envelope), starting no payment', async () => {
    const checkout = await guestCheckout(prodServer, store, { product_id: product.id, quantity: 1 });
    const res = await guestInitiate(prodServer, store, checkout.checkoutUrl, 'card');
    expect(res.status, res.text).to.equal(400);
    expect(res.body.success).to.equal(false);
    expect(res.body.message).to.be.a('string').and.not.equal('');
    expect(await Payment.query().where({ checkout_id: checkout.checkoutId })).to.have.length(0);
  });

  it('answers 404 on the sandbox page, the payment-page Pay action and the sandbox webhook: nothing marks paid', async () => {
    // A sandbox payment opened while the sandbox was on (a development process on the same database).
    const started = await startHostedPayment(dev.server, store, product, 'card', { phone: '500000911' });
    const ref = new URL(started.redirectUrl).pathname;
    const sandboxId = String(started.payment.provider_payment_id);

    const page = await browse(prodServer, ref);
    expect(page.status, 'the payment page of a sandbox payment').to.equal(404);
    expect(page.text).to.not.include('outcome');
    const pay = await browse(prodServer, ref, { outcome: 'paid' });
    expect(pay.status, 'the Pay action').to.equal(404);
    const back = await browse(prodServer, `${ref}?return=1`);
    expect(back.status).to.equal(404);
    for (const method of ['GET', 'POST'] as const) {
      const sandboxPage = await prodServer.request(`/sandbox/checkout/${sandboxId}`, {
        method,
        headers: { 'X-Forwarded-For': randomIp(), 'Content-Type': 'application/x-www-form-urlencoded' },
        body: method === 'POST' ? 'outcome=paid' : undefined,
      });
      expect(sandboxPage.status, `${method} /sandbox/checkout`).to.equal(404);
    }
    // A correctly signed "paid" event, as the sandbox would deliver it.
    const gateway = new SandboxGateway(dev.deps.knex, dev.deps.appSecret, dev.deps.logger, {
      retryDelaysMs: [],
    });
    const decision = await gateway.decide(sandboxId, 'paid');
    if (decision.kind !== 'decided') throw new Error(`sandbox decision: ${decision.kind}`);
    const raw = JSON.stringify(decision.event);
    const webhook = await prodServer.request('/webhooks/sandbox', {
      method: 'POST',
      body: raw,
      headers: {
        'Content-Type': 'application/json',
        'X-Sandbox-Signature': signSandboxWebhook(sandboxWebhookKey(prod.appSecret), raw),
      },
    });
    expect(webhook.status, webhook.text).to.equal(404);
    expect(webhook.body).to.have.property('error_code', 'not_found');
    const payment = await Payment.query().findById(started.payment.id);
    expect(payment?.status).to.not.equal('paid');
    expect(await Order.query().where({ checkout_id: started.checkout.checkoutId })).to.have.length(0);
  });

  it('with SANDBOX_ENABLED=1 production offers it again', async () => {
    const on = await startServer(await isolatedDeps({ NODE_ENV: 'production', SANDBOX_ENABLED: '1' }));
    try {
      const res = await on.request(`/api/embed/product/${product.id}`, {
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
      });
      expect(methodIds((res.body.data as { payment_methods: unknown }).payment_methods)).to.deep.equal([
        'card',
        'mada',
      ]);
    } finally {
      await on.close();
    }
  });
});
