import { expect } from 'chai';
import type { Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { fulfilOrder, sendOrderDelivery } from '../../../shared/services/fulfilment';
import {
  createCustomer,
  createProduct,
  createStore,
  customerToken,
  merchantToken,
} from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { deliverQueuedOtps, randomIp } from '../../helpers/otp';

const AR = /[\u0600-\u06FF]/;

/**
 * Errors a program can branch on (docs/errors.md): stable codes, the headers of 401, 405 and rate limits,
 * one code for malformed JSON everywhere, 415; and the buyer's language on the Embed and Storefront APIs,
 * the OTP and the delivery message, with the spec's English as the default.
 */
describe('error codes, error headers and the buyer’s language', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let host: string;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    host = `shop-${Date.now()}.test`;
    store = await createStore({ domains: [host] });
  });
  after(() => server.close());

  const embed = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    server.request(path, {
      ...init,
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp(), ...(init.headers ?? {}) },
    });

  it('names embed failures with a code; Arabic by Accept-Language, the spec’s English by default', async () => {
    const en = await embed('/api/embed/product/999999');
    expect(en.status).to.equal(404);
    expect(en.body).to.deep.equal({
      success: false,
      message: 'Product not found',
      error_code: 'product_not_found',
    });
    const ar = await embed('/api/embed/product/999999', { headers: { 'Accept-Language': 'ar-SA,en;q=0.5' } });
    expect(ar.body.error_code).to.equal('product_not_found');
    expect(ar.body.message).to.match(AR);
    const asked = await embed('/api/embed/product/999999', {
      headers: { 'Accept-Language': 'en-US,ar;q=0.9' },
    });
    expect(asked.body.message).to.equal('Product not found');

    const product = await createProduct(store);
    const coupon = { code: 'NOPE', product_id: product.id, quantity: 1 };
    const bad = await embed('/api/embed/apply-coupon', { method: 'POST', json: coupon });
    expect(bad.body).to.deep.equal({
      success: false,
      message: 'Invalid coupon',
      error_code: 'coupon_invalid',
    });
    const badAr = await embed('/api/embed/apply-coupon', {
      method: 'POST',
      json: coupon,
      headers: { 'Accept-Language': 'ar' },
    });
    expect(badAr.body).to.include({ error_code: 'coupon_invalid' });
    expect(badAr.body.message).to.match(AR);
    // X-RateLimit-Reset beside the limit headers, on successes too.
    const ok = await embed(`/api/embed/product/${product.id}`);
    expect(ok.status).to.equal(200);
    expect(ok.headers.get('x-ratelimit-reset')).to.match(/^\d+$/);
  });

  it('answers malformed JSON with one code on every interface, and 415 for a body in another type', async () => {
    const token = await merchantToken(store);
    const malformed = { method: 'POST', body: '{"a":', headers: { 'Content-Type': 'application/json' } };
    const answers = [
      await embed('/api/embed/apply-coupon', malformed),
      await server.request('/api/wishlist', { ...malformed, headers: { ...malformed.headers, Host: host } }),
      await server.request('/shawarma/webhooks', {
        ...malformed,
        headers: { ...malformed.headers, Authorization: `Bearer ${token}` },
      }),
    ];
    for (const res of answers) {
      expect(res.status, res.text).to.equal(400);
      expect(res.body.error_code, res.text).to.equal('malformed_json');
    }

    const text = await embed('/api/embed/guest/checkout', {
      method: 'POST',
      body: '{"product_id": 1}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).to.equal(415);
    expect(text.body).to.include({ success: false, error_code: 'unsupported_media_type' });
  });

  it('puts Allow on a 405 and WWW-Authenticate on a 401', async () => {
    const wrong = await embed('/api/embed/auth/start');
    expect(wrong.status).to.equal(405);
    expect(wrong.headers.get('allow')).to.equal('POST');
    expect(wrong.body.error_code).to.equal('method_not_allowed');

    const keyless = await server.request('/api/embed/product/1', {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(keyless.status).to.equal(401);
    expect(keyless.body.error_code).to.equal('embed_key_required');
    expect(keyless.headers.get('www-authenticate')).to.match(/^EmbedKey realm="embed"/);

    const merchant = await server.request('/shawarma/store', { headers: { 'X-Forwarded-For': randomIp() } });
    expect(merchant.status).to.equal(401);
    expect(merchant.body).to.include({ error: true, error_code: 'unauthenticated' });
    expect(merchant.headers.get('www-authenticate')).to.equal('Bearer realm="merchant"');
  });

  it('answers the Storefront’s messages in Arabic when asked, in the spec’s English otherwise', async () => {
    const product = await createProduct(store);
    const token = await customerToken(await createCustomer(store), 'storefront');
    const add = (lang: string) =>
      server.request('/api/wishlist', {
        method: 'POST',
        json: { product_id: product.id },
        headers: {
          Host: host,
          Authorization: `Bearer ${token}`,
          'Accept-Language': lang,
          'X-Forwarded-For': randomIp(),
        },
      });
    const ar = await add('ar');
    expect(ar.status, ar.text).to.be.oneOf([200, 201]);
    expect(ar.body.message).to.match(AR);
    const again = await add('ar');
    expect(again.body).to.include({ error_code: 'wishlist_already_added' });
    expect(again.body.message).to.match(AR);
    const en = await add('en');
    expect(en.body).to.deep.equal({
      success: false,
      data: null,
      message: 'Product already in wishlist',
      error_code: 'wishlist_already_added',
    });
  });

  it('sends the OTP and the delivery message in Arabic to a buyer who asked for Arabic', async () => {
    const product = await createProduct(store, { type: 'code', price_minor: 0 });
    await deps.knex('product_codes').insert({ product_id: product.id, code: `KEY-${store.id}` });
    const start = await embed('/api/embed/auth/start', {
      method: 'POST',
      json: { product_id: product.id, country_code: '966', phone: '500000771' },
      headers: { 'Accept-Language': 'ar' },
    });
    expect(start.status, start.text).to.equal(200);
    await deliverQueuedOtps(deps);
    const [otp] = await deps.knex('outbound_messages').where({ to: '966500000771', purpose: 'otp' });
    expect(otp.body)
      .to.match(AR)
      .and.match(/(?<!\d)\d{4}(?!\d)/);

    const checkout = await embed('/api/embed/guest/checkout', {
      method: 'POST',
      headers: { 'Accept-Language': 'ar' },
      json: {
        product_id: product.id,
        quantity: 1,
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_phone: '500000772',
        customer_country_code: '966',
      },
    });
    expect(checkout.status, checkout.text).to.equal(200);
    const orderId = Number((checkout.body.data as { order_id: number }).order_id);
    await fulfilOrder(deps, orderId, 'created');
    await sendOrderDelivery(deps, orderId);
    const [delivery] = await deps
      .knex('outbound_messages')
      .where({ to: '966500000772', purpose: 'order_delivery' });
    // People read the store's own order number (docs/dashboard.md, "Order numbers").
    const { number } = await deps.knex('orders').where('id', orderId).first('number');
    expect(delivery.body).to.contain(`#${number}`).and.contain(`KEY-${store.id}`).and.match(AR);
  });
});

describe('the guides the API documentation links', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer(await isolatedDeps());
  });
  after(() => server.close());

  it('serves every docs/*.md that /openapi.json links, and no other file', async () => {
    const doc = await server.request('/openapi.json');
    const linked = new Set([...doc.text.matchAll(/\]\(\/docs\/([a-z-]+\.md)/g)].map((m) => m[1]!));
    expect([...linked]).to.include.members(['errors.md', 'webhooks.md', 'versioning.md', 'license.md']);
    for (const page of linked) {
      const res = await server.request(`/docs/${page}`);
      expect(res.status, page).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/markdown/);
      expect(res.text).to.match(/^# /);
    }
    expect((await server.request('/docs/operations.md')).status).to.equal(422);
    expect((await server.request('/docs/..%2Fpackage.json')).status).to.equal(422);
  });
});
