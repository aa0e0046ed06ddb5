/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk nested JSON answers the contract check has already validated */
import { expect } from 'chai';
import fc from 'fast-check';
import path from 'node:path';
import { ORDER_STATUS, Product } from '../../../db/models';
import { PAID_PLAN_MESSAGE } from '../../../api/middleware/merchant-auth';
import { randomToken, sha256 } from '../../../shared/crypto';
import { createStorage } from '../../../shared/storage';
import { createCategory, createCustomer, createPaymentMethod, createProduct } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer } from '../../helpers/http';
import { call, expectEnvelope, merchantStore, MerchantStore, seedOrder, useMerchantSuite } from './support';

/**
 * The Merchant API's contract as a client sees it: the envelope on every route and error, the token
 * guard, per-store isolation on every route, lists and filters, and bad input answered 4xx (never 5xx).
 */
describe('Merchant API: guard, envelope, isolation, lists, bad input', function () {
  this.timeout(30_000);
  const suite = useMerchantSuite();
  let a: MerchantStore;
  let b: MerchantStore;
  let product: Product;
  let code: Product;
  let orderId: number;
  let subscriptionId: number;
  let endpointId: number;

  before(async () => {
    const { knex } = suite.deps;
    a = await merchantStore({ name: 'Store A', currency: 'SAR', tax_mode: 'exclusive', tax_rate_bp: 1500 });
    b = await merchantStore({ name: 'Store B' });
    await knex('store_domains').insert({
      store_id: a.store.id,
      domain: `a${a.store.id}.localhost`,
      txt_value: 'matjar-verify=test',
      verified_at: new Date(),
    });
    await createPaymentMethod(a.store, {
      method: 'card',
      provider: 'sandbox',
      credentials_encrypted: 'v1.secret',
    });
    const category = await createCategory(a.store, { name: 'Games' });
    product = await createProduct(a.store, {
      name: 'VIP',
      price_minor: 2_500,
      stock: 7,
      fields: [
        { type: 'text', label: 'Player id', required: true },
        { type: 'image', label: 'Avatar', required: false },
      ],
      license_enabled: true,
      license_prefix: 'VIP',
      license_lock_type: 'hwid',
      license_max_activations: 2,
    });
    await knex('product_categories').insert({ product_id: product.id, category_id: category.id });
    await knex('product_plans').insert({
      product_id: product.id,
      name: 'Monthly',
      price_minor: 1_000,
      duration: 'monthly',
    });
    await knex('product_fivem_commands').insert({
      product_id: product.id,
      command: 'give {player} vip',
      require_online: true,
    });
    code = await createProduct(a.store, { name: 'Key', type: 'code', price_minor: 1_000 });
    await knex('product_codes').insert([
      { product_id: code.id, code: `K-${a.store.id}-1` },
      { product_id: code.id, code: `K-${a.store.id}-2` },
    ]);

    // An order with everything its detail shows: a checkout with an uploaded file, a license, a FiveM
    // command, a sold key, a subscription, a payment.
    const customer = await createCustomer(a.store);
    const [checkout] = await knex('checkouts')
      .insert({
        store_id: a.store.id,
        token_hash: sha256(randomToken()),
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_country_code: '966',
        customer_phone: '500000001',
        product_id: product.id,
        quantity: 1,
        unit_price_minor: 2_500,
        subtotal_minor: 2_500,
        total_minor: 2_500,
        currency: 'SAR',
        status: 'paid',
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .returning('id');
    const checkoutId = Number((checkout as { id: number }).id);
    const [payment] = await knex('payments')
      .insert({
        checkout_id: checkoutId,
        store_id: a.store.id,
        method: 'card',
        provider: 'sandbox',
        status: 'paid',
        amount_minor: 2_500,
        currency: 'SAR',
      })
      .returning('id');
    const seeded = await seedOrder(knex, a.store, product, {
      status: ORDER_STATUS.COMPLETED,
      paymentId: Number((payment as { id: number }).id),
      paymentMethod: 'card',
      customerId: customer.id,
      email: 'Buyer@Example.com',
      phone: '500000777',
    });
    orderId = seeded.id;
    await knex('orders').where('id', orderId).update({ checkout_id: checkoutId });
    await knex('order_items')
      .where('id', seeded.itemId)
      .update({ fields: JSON.stringify({ '0': 'Player42', '1': { file: true } }) });
    const storage = createStorage(suite.deps.config);
    const key = `checkouts/merchant-test-${a.store.id}/field-1.png`;
    await storage.put(key, path.join(__dirname, '../../fixtures/uploads/sample.png'), 'image/png');
    await knex('checkout_uploads').insert({
      checkout_id: checkoutId,
      field_index: 1,
      storage_driver: 'local',
      storage_key: key,
      original_name: 'avatar.png',
      mime_type: 'image/png',
      size_bytes: 100,
    });
    await knex('licenses').insert({
      store_id: a.store.id,
      product_id: product.id,
      order_id: orderId,
      order_item_id: seeded.itemId,
      unit: 1,
      key: `VIP-${a.store.id}-AAAA-BBBB-CCCC`,
      status: 'active',
    });
    await knex('fivem_commands').insert({
      store_id: a.store.id,
      order_id: orderId,
      order_item_id: seeded.itemId,
      player_id: 'Player42',
      command: 'give Player42 vip',
      require_online: true,
    });
    const keyOrder = await seedOrder(knex, a.store, code, { status: ORDER_STATUS.COMPLETED });
    await knex('product_codes')
      .where('code', `K-${a.store.id}-1`)
      .update({ status: 'sold', order_item_id: keyOrder.itemId, sold_at: new Date() });
    const [plan] = await knex('product_plans').where('product_id', product.id).select('id');
    const [sub] = await knex('subscriptions')
      .insert({
        store_id: a.store.id,
        customer_id: customer.id,
        product_id: product.id,
        plan_id: plan.id,
        order_id: orderId,
        order_item_id: seeded.itemId,
        status: 'active',
        current_period_start: new Date(),
        current_period_end: new Date(Date.now() + 30 * 86_400_000),
      })
      .returning('id');
    subscriptionId = Number((sub as { id: number }).id);
    const created = await call(suite.server, a.token, 'POST', '/shawarma/webhooks', {
      url: 'https://hooks.example.test/matjar',
      events: ['order.paid'],
    });
    expectEnvelope(created, 201);
    endpointId = (created.body.data as { id: number }).id;
  });

  describe('token guard', () => {
    it('no token, a wrong token and a revoked token are 401 in the envelope', async () => {
      for (const token of [null, 'mt_not-a-real-token', '']) {
        expectEnvelope(await call(suite.server, token, 'GET', '/shawarma/store'), 401);
      }
      const revoked = await merchantStore();
      await suite.deps
        .knex('merchant_tokens')
        .where('store_id', revoked.store.id)
        .update({ revoked_at: new Date() });
      expectEnvelope(await call(suite.server, revoked.token, 'GET', '/shawarma/store'), 401);
      const basic = await suite.server.request('/shawarma/store', {
        headers: { Authorization: `Basic ${a.token}` },
      });
      expectEnvelope(basic, 401);
    });

    it('a free-plan store is 403 with a message saying a paid plan is needed', async () => {
      const free = await merchantStore({ plan: 'free' });
      const res = await call(suite.server, free.token, 'GET', '/shawarma/orders');
      expectEnvelope(res, 403);
      expect(res.body.message)
        .to.equal(PAID_PLAN_MESSAGE)
        .and.match(/paid plan/);
    });

    it('60 requests per minute per token, then 429 with a message; another token is not affected', async () => {
      const deps = await isolatedDeps();
      const server = await startServer(deps);
      try {
        const one = await merchantStore();
        const two = await merchantStore();
        const answers = await Promise.all(
          Array.from({ length: 61 }, () => call(server, one.token, 'GET', '/shawarma/store')),
        );
        expect(answers.filter((r) => r.status === 200)).to.have.length(60);
        const limited = answers.find((r) => r.status === 429)!;
        expectEnvelope(limited, 429);
        expect(limited.body.message).to.match(/too many/i);
        expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
        expectEnvelope(await call(server, two.token, 'GET', '/shawarma/store'), 200);
      } finally {
        await server.close();
      }
    });
  });

  it('every route answers the envelope, and another store gets 404 for every id of this one', async () => {
    const routes: [string, string, unknown?][] = [
      ['GET', `/shawarma/orders/${orderId}`],
      ['PUT', `/shawarma/orders/${orderId}`, { status: ORDER_STATUS.REFUNDED }],
      ['GET', `/shawarma/orders/${orderId}/uploads/1`],
      ['GET', `/shawarma/products/${product.id}`],
      ['GET', `/shawarma/subscriptions/${subscriptionId}`],
      ['DELETE', `/shawarma/webhooks/${endpointId}`],
    ];
    for (const [method, p, body] of routes) {
      const res = await call(suite.server, b.token, method, p, body);
      expectEnvelope(res, 404);
    }
    // Nothing of store A changed.
    expect((await suite.deps.knex('orders').where('id', orderId).first()).status).to.equal(
      ORDER_STATUS.COMPLETED,
    );
    expect(await suite.deps.knex('merchant_webhook_endpoints').where('id', endpointId).first()).to.not.equal(
      undefined,
    );
    // Store B's lists hold nothing of store A.
    for (const p of [
      '/shawarma/orders',
      '/shawarma/products',
      '/shawarma/categories',
      '/shawarma/subscriptions',
      '/shawarma/webhooks',
    ]) {
      const res = await call(suite.server, b.token, 'GET', p);
      expectEnvelope(res, 200);
      expect((res.body.data as { data: unknown[] }).data, p).to.deep.equal([]);
      expect((res.body.data as { meta: { total: number } }).meta.total).to.equal(0);
    }
    // And a product of store A cannot be ordered by store B.
    const order = await call(suite.server, b.token, 'POST', '/shawarma/orders', {
      product_id: product.id,
      quantity: 1,
      customer_first_name: 'A',
      customer_last_name: 'B',
      customer_email: 'a@b.test',
      customer_phone: '500000001',
      customer_country_code: '966',
    });
    expectEnvelope(order, 422);
    expect(order.body.errors).to.have.property('product_id');
  });

  it('GET /store: name, currency, domains, plan, payment methods (no credentials), tax', async () => {
    const res = await call(suite.server, a.token, 'GET', '/shawarma/store');
    expectEnvelope(res, 200);
    expect(res.body.data).to.deep.include({
      id: a.store.id,
      name: 'Store A',
      currency: 'SAR',
      plan: 'paid',
      domains: [`a${a.store.id}.localhost`],
      embed_key: a.store.embed_key,
      tax: { mode: 'exclusive', rate: '15.00' },
    });
    const methods = (res.body.data as { payment_methods: Record<string, unknown>[] }).payment_methods;
    expect(methods).to.have.length(1);
    expect(methods[0]).to.deep.include({ method: 'card', provider: 'sandbox', active: true });
    // A credential sealed under another secret is unreadable: shown as set, never in the clear.
    expect(methods[0].credentials).to.deep.equal({ sealed: 'set' });
    expect(res.text).to.not.contain('v1.secret');
  });

  it('GET /orders: newest first, 15 per page by default, filters, totals in meta', async () => {
    const { knex } = suite.deps;
    const many = await merchantStore();
    const p1 = await createProduct(many.store, { price_minor: 1_000 });
    const p2 = await createProduct(many.store, { price_minor: 2_000 });
    const day = (n: number) => new Date(Date.UTC(2026, 0, n, 12));
    for (let i = 1; i <= 20; i += 1) {
      await seedOrder(knex, many.store, i % 2 ? p1 : p2, {
        status: i <= 5 ? ORDER_STATUS.UNDER_REVIEW : ORDER_STATUS.COMPLETED,
        createdAt: day(i),
        email: i === 7 ? 'Seven@Example.com' : `o${i}@example.com`,
        phone: `5000000${String(i).padStart(2, '0')}`,
      });
    }
    const all = await call(suite.server, many.token, 'GET', '/shawarma/orders');
    expectEnvelope(all, 200);
    const page = all.body.data as {
      data: { id: number; created_at: string; status: number; total: string }[];
      meta: Record<string, number>;
      per_page: number;
      total: number;
    };
    expect(page.data).to.have.length(15);
    expect(page.meta).to.deep.equal({ page: 1, per_page: 15, total: 20, last_page: 2 });
    expect(page.per_page).to.equal(15);
    expect(page.data[0]!.created_at).to.equal(day(20).toISOString());
    expect(page.data.map((o) => o.created_at)).to.deep.equal(
      [...page.data.map((o) => o.created_at)].sort().reverse(),
    );
    const second = await call(suite.server, many.token, 'GET', '/shawarma/orders?page=2&per_page=15');
    expect((second.body.data as { data: unknown[] }).data).to.have.length(5);

    const q = async (qs: string) => {
      const res = await call(suite.server, many.token, 'GET', `/shawarma/orders?${qs}`);
      expectEnvelope(res, 200);
      return (res.body.data as { data: { id: number }[]; meta: { total: number } }).meta.total;
    };
    expect(await q('status=2')).to.equal(5);
    expect(await q('status=2,4')).to.equal(20);
    expect(await q('from=2026-01-03&to=2026-01-05')).to.equal(3);
    expect(await q('from=2026-01-03T12:00:00Z&to=2026-01-03T12:00:00Z')).to.equal(1);
    expect(await q('email=seven@example.com')).to.equal(1);
    expect(await q('phone=500000009')).to.equal(1);
    expect(await q(`product_id=${p2.id}`)).to.equal(10);
    expect(await q(`product_id=${p2.id}&status=4`)).to.equal(8);
  });

  it('bad input is a 422 in the envelope naming the field, never a 5xx', async () => {
    const bad: [string, string, unknown?, string?][] = [
      ['GET', '/shawarma/orders?page=0', undefined, 'page'],
      ['GET', '/shawarma/orders?per_page=101', undefined, 'per_page'],
      ['GET', '/shawarma/orders?per_page=abc', undefined, 'per_page'],
      ['GET', '/shawarma/orders?page=99999999999', undefined, 'page'],
      ['GET', '/shawarma/orders?status=7', undefined, 'status'],
      ['GET', '/shawarma/orders?from=yesterday', undefined, 'from'],
      ['GET', '/shawarma/orders?to=2026-13-45', undefined, 'to'],
      ['GET', '/shawarma/orders?to=2026-02-30', undefined, 'to'],
      ['GET', '/shawarma/orders?from=99999-01-01T00:00:00Z', undefined, 'from'],
      ['GET', '/shawarma/orders?from=2026-02-01&to=2026-01-01', undefined],
      ['GET', '/shawarma/orders?colour=red', undefined, 'colour'],
      ['GET', '/shawarma/orders?email=not-an-email', undefined, 'email'],
      ['GET', '/shawarma/orders?product_id=-1', undefined, 'product_id'],
      ['GET', '/shawarma/orders/abc', undefined, 'id'],
      ['GET', '/shawarma/orders/0', undefined, 'id'],
      ['GET', '/shawarma/orders/99999999999999', undefined, 'id'],
      ['PUT', `/shawarma/orders/${orderId}`, { status: 9 }, 'status'],
      ['PUT', `/shawarma/orders/${orderId}`, { status: '4' }, 'status'],
      ['PUT', `/shawarma/orders/${orderId}`, {}, 'status'],
      ['PUT', `/shawarma/orders/${orderId}`, { status: 4, note: 'x' }, 'note'],
      ['POST', '/shawarma/orders', {}, 'product_id'],
      ['POST', '/shawarma/orders', { product_id: 'x', quantity: 0 }, 'quantity'],
      ['GET', '/shawarma/products?type=car', undefined, 'type'],
      ['GET', '/shawarma/products?active=maybe', undefined, 'active'],
      ['GET', '/shawarma/products/1.5', undefined, 'id'],
      ['GET', '/shawarma/categories?per_page=0', undefined, 'per_page'],
      ['GET', '/shawarma/subscriptions?status=paused', undefined, 'status'],
      ['GET', '/shawarma/subscriptions/x', undefined, 'id'],
      ['GET', '/shawarma/store/statics?days=9', undefined, 'days'],
      ['POST', '/shawarma/webhooks', { url: 'ftp://x.test', events: ['order.paid'] }, 'url'],
      ['POST', '/shawarma/webhooks', { url: 'https://u:p@x.test', events: ['order.paid'] }, 'url'],
      ['POST', '/shawarma/webhooks', { url: 'https://x.test', events: ['order.eaten'] }, 'events.0'],
      ['POST', '/shawarma/webhooks', { url: 'https://x.test', events: [] }, 'events'],
      ['DELETE', '/shawarma/webhooks/nope', undefined, 'id'],
    ];
    for (const [method, p, body, field] of bad) {
      const res = await call(suite.server, a.token, method, p, body);
      expectEnvelope(res, 422);
      if (field) expect(res.body.errors, `${method} ${p}`).to.have.property(field);
    }
    const malformed = await suite.server.request('/shawarma/orders', {
      method: 'POST',
      body: '{"product_id":',
      headers: { Authorization: `Bearer ${a.token}`, 'Content-Type': 'application/json' },
    });
    expectEnvelope(malformed, 400);
    const key = await call(
      suite.server,
      a.token,
      'POST',
      '/shawarma/orders',
      { product_id: product.id },
      { 'Idempotency-Key': 'x'.repeat(300) },
    );
    expectEnvelope(key, 422);
    expectEnvelope(await call(suite.server, a.token, 'GET', '/shawarma/nothing-here'), 404);
    expectEnvelope(await call(suite.server, a.token, 'GET', '/shawarma/orders/2147483647'), 404);
  });

  it('random query values, ids and bodies never get a 5xx (property test)', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.integer().map(String),
      fc.constantFrom('', '-1', '1e99', '0x10', 'null', '[]', '2026-13-45'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          'status',
          'from',
          'to',
          'email',
          'phone',
          'product_id',
          'page',
          'per_page',
          'type',
          'active',
          'category_id',
        ),
        text,
        fc.constantFrom(
          '/shawarma/orders',
          '/shawarma/products',
          '/shawarma/subscriptions',
          '/shawarma/categories',
        ),
        async (name, value, list) => {
          const res = await call(
            suite.server,
            a.token,
            'GET',
            `${list}?${name}=${encodeURIComponent(value)}`,
          );
          expect(res.status, `${list}?${name}=${value}: ${res.text}`).to.be.oneOf([200, 422]);
          expectEnvelope(res, res.status);
        },
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(text, fc.jsonValue({ maxDepth: 2 }), async (rawId, body) => {
        const path = `/shawarma/orders/${encodeURIComponent(rawId) || 'x'}`;
        const put = await call(suite.server, b.token, 'PUT', path, body);
        expect(put.status, `${path} ${JSON.stringify(body)}: ${put.text}`).to.be.below(500);
        const post = await call(suite.server, b.token, 'POST', '/shawarma/orders', body);
        expect(post.status, `${JSON.stringify(body)}: ${post.text}`).to.be.below(500);
      }),
      { numRuns: 40 },
    );
  });

  it('GET /orders/{id}: items, customer, payment, custom fields with upload links, keys, licenses, FiveM, subscription', async () => {
    const res = await call(suite.server, a.token, 'GET', `/shawarma/orders/${orderId}`);
    expectEnvelope(res, 200);
    const d = res.body.data as Record<string, any>;
    expect(d).to.deep.include({ id: orderId, status: 4, total: '25.00', currency: 'SAR' });
    expect(d.created_at).to.match(/^\d{4}-\d{2}-\d{2}T/);
    expect(d.items[0]).to.deep.include({ product_id: product.id, quantity: 1, unit_price: '25.00' });
    expect(d.customer).to.deep.include({ email: 'Buyer@Example.com', phone: '500000777' });
    expect(d.payment).to.deep.include({
      method: 'card',
      provider: 'sandbox',
      status: 'paid',
      amount: '25.00',
    });
    expect(d.items[0].fields[0]).to.deep.include({
      index: 0,
      label: 'Player id',
      value: 'Player42',
      file: null,
    });
    const file = d.items[0].fields[1].file;
    expect(file).to.deep.include({ name: 'avatar.png', mime_type: 'image/png' });
    expect(file.url).to.equal(`http://localhost:3999/shawarma/orders/${orderId}/uploads/1`);
    expect(d.licenses).to.have.length(1);
    expect(d.licenses[0]).to.deep.include({ key: `VIP-${a.store.id}-AAAA-BBBB-CCCC`, status: 'active' });
    expect(d.fivem_commands).to.have.length(1);
    expect(d.fivem_commands[0]).to.deep.include({
      command: 'give Player42 vip',
      status: 'pending',
      player_id: 'Player42',
    });
    expect(d.subscriptions[0]).to.deep.include({ id: subscriptionId, status: 'active' });

    const download = await suite.server.request(`/shawarma/orders/${orderId}/uploads/1`, {
      headers: { Authorization: `Bearer ${a.token}` },
    });
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.equal('image/png');
    expect(download.headers.get('content-disposition')).to.contain('avatar.png');
    expectEnvelope(await call(suite.server, a.token, 'GET', `/shawarma/orders/${orderId}/uploads/0`), 404);

    const keyOrders = await call(suite.server, a.token, 'GET', `/shawarma/orders?product_id=${code.id}`);
    const keyOrderId = (keyOrders.body.data as { data: { id: number }[] }).data[0]!.id;
    const keyDetail = await call(suite.server, a.token, 'GET', `/shawarma/orders/${keyOrderId}`);
    expect((keyDetail.body.data as any).items[0].codes).to.deep.equal([`K-${a.store.id}-1`]);
  });

  it('GET /products and /products/{id}: stock, sales, fields, plans, license settings, FiveM commands, keys left', async () => {
    const list = await call(suite.server, a.token, 'GET', '/shawarma/products');
    expectEnvelope(list, 200);
    const rows = (list.body.data as { data: Record<string, any>[] }).data;
    const vip = rows.find((r) => r.id === product.id)!;
    expect(vip).to.deep.include({ name: 'VIP', type: 'product', sales_count: 1 });
    expect(vip.price).to.deep.equal({ original: '25.00', actual: '25.00', currency: 'SAR' });
    expect(vip.stock).to.deep.equal({ unlimited: false, quantity: 7, is_in_stock: true });
    const key = rows.find((r) => r.id === code.id)!;
    expect(key.stock).to.deep.equal({ unlimited: false, quantity: 1, is_in_stock: true });
    const filtered = async (qs: string) =>
      (
        (await call(suite.server, a.token, 'GET', `/shawarma/products?${qs}`)).body.data as {
          data: { id: number }[];
        }
      ).data.map((r) => r.id);
    expect(await filtered('type=code')).to.deep.equal([code.id]);
    expect(await filtered('active=false')).to.deep.equal([]);
    const [cat] = await suite.deps.knex('product_categories').where('product_id', product.id);
    expect(await filtered(`category_id=${cat.category_id}`)).to.deep.equal([product.id]);

    const detail = await call(suite.server, a.token, 'GET', `/shawarma/products/${product.id}`);
    expectEnvelope(detail, 200);
    const d = detail.body.data as Record<string, any>;
    expect(d.fields.map((f: { label: string }) => f.label)).to.deep.equal(['Player id', 'Avatar']);
    expect(d.plans[0]).to.deep.include({ name: 'Monthly', price: '10.00', duration: 'monthly' });
    expect(d.license).to.deep.equal({
      enabled: true,
      prefix: 'VIP',
      lock_type: 'hwid',
      max_activations: 2,
      encrypt: false,
      encryption_key: null,
    });
    expect(d.fivem_commands[0]).to.deep.include({ command: 'give {player} vip', require_online: true });
    // A product whose verify answers are encrypted shows the merchant the key to decrypt them with.
    await suite.deps.knex('products').where('id', product.id).update({ license_encrypt: true });
    const sealed = await call(suite.server, a.token, 'GET', `/shawarma/products/${product.id}`);
    const license = (sealed.body.data as Record<string, any>).license;
    expect(license.encrypt).to.equal(true);
    expect(Buffer.from(license.encryption_key, 'base64')).to.have.length(32);
    await suite.deps.knex('products').where('id', product.id).update({ license_encrypt: false });
    const keyDetail = await call(suite.server, a.token, 'GET', `/shawarma/products/${code.id}`);
    expect((keyDetail.body.data as { keys_left: number }).keys_left).to.equal(1);
  });

  it('GET /categories with product counts; GET /subscriptions and /subscriptions/{id}', async () => {
    const cats = await call(suite.server, a.token, 'GET', '/shawarma/categories');
    expectEnvelope(cats, 200);
    expect((cats.body.data as { data: Record<string, unknown>[] }).data[0]).to.deep.include({
      name: 'Games',
      product_count: 1,
    });
    const subs = await call(suite.server, a.token, 'GET', '/shawarma/subscriptions?status=active');
    expectEnvelope(subs, 200);
    expect((subs.body.data as { data: { id: number }[] }).data.map((s) => s.id)).to.deep.equal([
      subscriptionId,
    ]);
    const sub = await call(suite.server, a.token, 'GET', `/shawarma/subscriptions/${subscriptionId}`);
    expectEnvelope(sub, 200);
    const d = sub.body.data as Record<string, any>;
    expect(d).to.deep.include({ id: subscriptionId, status: 'active', order_id: orderId });
    expect(d.plan).to.deep.include({ name: 'Monthly', duration: 'monthly', price: '10.00' });
    expect(d.product).to.deep.equal({ id: product.id, name: 'VIP' });
    expect(d.current_period.end).to.be.a('string');
    expect(d.renewals).to.deep.equal([]);
  });
});
