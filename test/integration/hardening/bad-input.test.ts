import http from 'node:http';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createPaymentMethod, createProduct, createStore, merchantToken } from '../../helpers/builders';
import { GUEST_BUYER } from '../../helpers/checkouts';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

/**
 * What Postgres cannot store (NUL, bytes that are not UTF-8, absurd nesting) and a phone
 * with an unknown calling code are 4xx answers in the interface's envelope, never a 500. Each case below
 * answered 500 before the one layer in front of every route (api/middleware/storable-input.ts).
 */
describe('bad input is a 4xx in the envelope, never a 500', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    store = await createStore({ domains: ['badinput.localhost'] });
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
    product = await createProduct(store);
  });
  after(() => server.close());

  const embed = (path: string, json: unknown): Promise<TestResponse> =>
    server.request(path, {
      method: 'POST',
      json,
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });

  /** The Embed envelope of a refusal: success false and a message; a 422 names the fields. */
  function expectEmbedRefusal(res: TestResponse, status: 422, field?: string): void {
    expect(res.status, res.text).to.equal(status);
    expect(res.body.success).to.equal(false);
    expect(res.body.message).to.be.a('string');
    if (status === 422) {
      expect(res.body.errors, res.text).to.be.an('object');
      if (field) expect(res.body.errors).to.have.property(field);
    }
  }

  it('a phone with an unknown country calling code on Embed and Storefront auth/start is a 422', async () => {
    const body = { product_id: product.id, country_code: '999', phone: '500000001' };
    expectEmbedRefusal(await embed('/api/embed/auth/start', body), 422, 'phone');
    const storefront = await server.request('/api/auth/start', {
      method: 'POST',
      json: { country_code: '+999', phone: '500000001' },
      headers: { Host: 'badinput.localhost', 'X-Forwarded-For': randomIp() },
    });
    expect(storefront.status, storefront.text).to.equal(422);
    expect(storefront.body).to.include({ success: false, data: null });
    expect(storefront.body.errors).to.have.property('phone');
  });

  it('refuses NUL in any string of a JSON body: coupon code, guest names, note, custom field values', async () => {
    const guest = { ...GUEST_BUYER, product_id: product.id, quantity: 1 };
    const cases: [string, unknown, string][] = [
      ['/api/embed/apply-coupon', { code: 'SAVE\u000010', product_id: product.id, quantity: 1 }, 'code'],
      ['/api/embed/guest/checkout', { ...guest, coupon_code: 'A\u0000' }, 'coupon_code'],
      ['/api/embed/guest/checkout', { ...guest, customer_first_name: 'Sa\u0000ra' }, 'customer_first_name'],
      ['/api/embed/guest/checkout', { ...guest, customer_note: 'hi\u0000' }, 'customer_note'],
      ['/api/embed/guest/checkout', { ...guest, fields: { '0': 'x\u0000y' } }, 'fields.0'],
      ['/api/embed/guest/checkout', { ...guest, ['customer_\u0000']: 'x' }, 'body'],
    ];
    for (const [path, body, field] of cases) expectEmbedRefusal(await embed(path, body), 422, field);
  });

  it('refuses NUL in a urlencoded and in a multipart body', async () => {
    const form = await server.request('/api/embed/guest/checkout', {
      method: 'POST',
      body: new URLSearchParams({
        ...GUEST_BUYER,
        product_id: String(product.id),
        quantity: '1',
        customer_last_name: 'A\u0000li',
      }).toString(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Embed-Key': store.embed_key,
        'X-Forwarded-For': randomIp(),
      },
    });
    expectEmbedRefusal(form, 422, 'customer_last_name');
    const parts = new FormData();
    for (const [k, v] of Object.entries({ ...GUEST_BUYER, product_id: String(product.id), quantity: '1' }))
      parts.set(k, v);
    parts.set('fields[0]', 'bad\u0000value');
    const multipart = await server.request('/api/embed/guest/checkout', {
      method: 'POST',
      body: parts,
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expectEmbedRefusal(multipart, 422, 'fields.0');
  });

  it('refuses NUL in the embed key query parameter and in the path', async () => {
    const keyed = await server.request(`/api/embed/product/${product.id}?embed_key=emb_pk_%00x`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expectEmbedRefusal(keyed, 422, 'embed_key');
    const oddName = await server.request(`/api/embed/product/${product.id}?a%zz=%00`, {
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expectEmbedRefusal(oddName, 422, 'a%zz');
    const sandbox = await server.request('/sandbox/checkout/%00', {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(sandbox.status).to.equal(422);
    expect(sandbox.body).to.have.nested.property('errors.path');
    const status = await server.request('/api/embed/payment/status/abc%00def', {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expectEmbedRefusal(status, 422, 'path');
  });

  it('refuses an unsigned sandbox webhook whose body holds NUL', async () => {
    const res = await server.request('/webhooks/sandbox', {
      method: 'POST',
      body: JSON.stringify({ id: 'evt\u0000', type: 'payment.paid', data: { id: 'x\u0000' } }),
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp() },
    });
    expect(res.status, res.text).to.equal(422);
    expect(res.body).to.have.property('errors');
  });

  it('refuses bytes that are not UTF-8 in the body, the query string and the path', async () => {
    const raw = Buffer.concat([
      Buffer.from(`{"code":"`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from(`","product_id":${product.id},"quantity":1}`),
    ]);
    const body = await rawRequest('POST', '/api/embed/apply-coupon', raw);
    expectEmbedRefusal(body, 422, 'body');
    const query = await server.request(`/api/embed/product/${product.id}?embed_key=%C3%28`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expectEmbedRefusal(query, 422, 'embed_key');
    const path = await server.request('/api/embed/payment/status/%FF%FE', {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expectEmbedRefusal(path, 422, 'path');
  });

  it('names fields called like Object methods (valueOf, constructor) in a 422, not a 500', async () => {
    // (A `__proto__` key is refused earlier, by the JSON parser, with a 400.)
    const token = await merchantToken(store);
    const res = await server.request('/shawarma/orders/1', {
      method: 'PUT',
      body: '{"valueOf":false,"constructor":1}',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    });
    expect(res.status, res.text).to.equal(422);
    expect(res.body.errors, res.text).to.have.property('valueOf');
    const nul = await rawRequest('POST', '/api/embed/guest/checkout', Buffer.from('{"valueOf":"a\\u0000"}'));
    expectEmbedRefusal(nul, 422, 'valueOf');
  });

  it('refuses a body nested deeper than any route needs', async () => {
    // Written by hand: JSON.stringify itself would overflow on a value this deep.
    const deep = '{"a":'.repeat(5_000) + '"leaf"' + '}'.repeat(5_000);
    const guest = JSON.stringify({ ...GUEST_BUYER, product_id: product.id, quantity: 1 });
    const res = await rawRequest(
      'POST',
      '/api/embed/guest/checkout',
      Buffer.from(guest.slice(0, -1) + `,"fields":{"0":${deep}}}`),
    );
    expectEmbedRefusal(res, 422);
  });

  function rawRequest(method: string, path: string, body: Buffer): Promise<TestResponse> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        server.url + path,
        {
          method,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': String(body.length),
            'X-Embed-Key': store.embed_key,
            'X-Forwarded-For': randomIp(),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: new Headers(),
              body: JSON.parse(text) as TestResponse['body'],
              text,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
});
