import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Store } from '../../../db/models';
import { createDeps, Deps } from '../../../shared/deps';
import { createLogger } from '../../../shared/logger';
import { deliverQueuedOtps, embedClient, latestCode, wrongCode } from '../../helpers/otp';
import { createCustomer, createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { testConfig } from '../../helpers/deps';
import { TEST_QUEUE_PREFIX } from '../../helpers/env';
import { startServer, TestServer } from '../../helpers/http';

/**
 * Secrets never reach the logs: a whole sign-in and checkout, logged at debug level, is searched for every
 * secret the client saw (checkout URL, OTP session token, code, customer token, embed key).
 */
describe('logs hold no secrets', () => {
  const lines: string[] = [];
  let deps: Deps;
  let server: TestServer;
  let store: Store;

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    deps = await createDeps(testConfig({ TRUST_PROXY: '1', QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}_logs` }), {
      role: 'test',
      pool: { min: 0, max: 4 },
      logger: createLogger('debug', 'web', sink),
    });
    server = await startServer(deps);
    store = await createStore();
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
  });
  after(async () => {
    await server.close();
    await deps.close();
  });

  it('logs requests by route pattern and never writes a token, code or checkout URL', async () => {
    const product = await createProduct(store);
    const customer = await createCustomer(store);
    const client = embedClient(server, store.embed_key);

    const started = await client.post('/api/embed/auth/start', {
      product_id: product.id,
      country_code: customer.country_code,
      phone: customer.phone,
    });
    const sessionToken = (started.body.data as { session_token: string }).session_token;
    const code = await latestCode(deps, customer.e164);
    await client.post('/api/embed/auth/verify', { session_token: sessionToken, code: wrongCode(code) });
    const verified = await client.post('/api/embed/auth/verify', { session_token: sessionToken, code });
    const customerToken = (verified.body.data as { token: string }).token;
    await client.post(
      '/api/embed/auth/validate',
      { product_id: product.id },
      { Authorization: `Bearer ${customerToken}` },
    );
    await deliverQueuedOtps(deps);

    const checkout = await guestCheckout(server, store, { product_id: product.id });
    await server.request(`/api/embed/payment/status/${checkout.checkoutUrl}`);
    await server.request(`/pay/${checkout.checkoutUrl}`);

    const logged = lines.join('');
    expect(logged).to.include('"route":"/api/embed/payment/status/:checkoutUrl"');
    for (const secret of [checkout.checkoutUrl, sessionToken, customerToken, store.embed_key]) {
      expect(logged, 'a secret in the logs').to.not.include(secret);
    }
    // Timestamps, ids and timings are digits by nature; the code must appear nowhere else.
    const content = lines.map((line) => {
      const {
        time: _time,
        requestId: _requestId,
        pid: _pid,
        ms: _ms,
        ...rest
      } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(rest);
    });
    expect(content.join('\n')).to.not.match(new RegExp(`(?<!\\d)${code}(?!\\d)`));
  });
});
