import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

/**
 * Through the routes: a request that has outlived REQUEST_DEADLINE_MS starts no work.
 * The late server has a budget of 1 ms and, while its request runs, a clock that moves 2 ms at every
 * reading, so every request is past its budget by the time its service would start work however fast it
 * got there (cached lookups take well under a millisecond). Each route that starts work (issue an OTP,
 * reserve stock, open a payment) answers 503 with Retry-After and leaves nothing behind; the same request
 * with the default budget is the control.
 */
describe('the request budget reaches the services that start work', () => {
  let deps: Deps;
  let late: TestServer;
  let control: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;

  before(async () => {
    deps = await isolatedDeps({ REQUEST_DEADLINE_MS: '1' });
    const started = await startServer(deps);
    late = {
      ...started,
      async request(path, init) {
        const realNow = Date.now;
        let readings = 0;
        Date.now = () => realNow() + 2 * ++readings;
        try {
          return await started.request(path, init);
        } finally {
          Date.now = realNow;
        }
      },
    };
    control = await isolatedDeps();
    server = await startServer(control);
    store = await createStore();
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
    product = await createProduct(store);
  });

  after(async () => {
    await late.close();
    await server.close();
    await deps.close();
    await control.close();
  });

  const count = async (table: string): Promise<number> =>
    Number((await deps.knex(table).where({ store_id: store.id }).count<{ n: string }[]>({ n: '*' }))[0].n);

  const guest = (phone: string) => ({
    product_id: product.id,
    quantity: 1,
    customer_first_name: 'Late',
    customer_last_name: 'Buyer',
    customer_email: `late${phone}@example.com`,
    customer_phone: phone,
    customer_country_code: '966',
  });

  it('issues no OTP', async () => {
    const body = { product_id: product.id, country_code: '966', phone: '551234001' };
    const headers = { 'x-embed-key': store.embed_key };
    const res = await late.request('/api/embed/auth/start', { method: 'POST', json: body, headers });
    expect(res.status).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expect(await count('otp_sessions')).to.equal(0);
    const ok = await server.request('/api/embed/auth/start', { method: 'POST', json: body, headers });
    expect(ok.status).to.equal(200);
    expect(await count('otp_sessions')).to.equal(1);
  });

  it('reserves nothing for a checkout', async () => {
    const headers = { 'x-embed-key': store.embed_key };
    const res = await late.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: guest('551234002'),
      headers,
    });
    expect(res.status).to.equal(503);
    expect(await count('checkouts')).to.equal(0);
    const ok = await server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: guest('551234003'),
      headers,
    });
    expect(ok.status).to.equal(200);
    expect(await count('checkouts')).to.equal(1);
  });

  it('opens no payment', async () => {
    const headers = { 'x-embed-key': store.embed_key };
    const opened = await server.request('/api/embed/guest/checkout', {
      method: 'POST',
      json: guest('551234004'),
      headers,
    });
    const checkoutUrl = (opened.body.data as { checkout_url: string }).checkout_url;
    const body = { checkout_url: checkoutUrl, payment_method: 'card' };
    const res = await late.request('/api/embed/guest/payment/initiate', {
      method: 'POST',
      json: body,
      headers,
    });
    expect(res.status).to.equal(503);
    expect(await count('payments')).to.equal(0);
    const ok = await server.request('/api/embed/guest/payment/initiate', {
      method: 'POST',
      json: body,
      headers,
    });
    expect(ok.status).to.equal(200);
    expect(await count('payments')).to.equal(1);
  });
});
