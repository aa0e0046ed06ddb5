import crypto from 'node:crypto';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { createDeps, type Deps } from '../../../shared/deps';
import { PaymentPageRefs } from '../../../shared/services/payments/page-ref';
import { testConfig } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';

/**
 * The sandbox Pay/Fail action (POST /pay/payments/{paymentRef}) with Postgres out of reach answers 503 in
 * the platform's JSON error envelope with Retry-After, and the OpenAPI document describes that answer: the
 * request helper checks the body against the document's 503 for the operation (test/helpers/contract.ts).
 */
describe('POST /pay/payments/{paymentRef}: 503 as the document describes it', () => {
  let deps: Deps;
  let unreachable: Knex;
  let server: TestServer;

  before(async () => {
    deps = await createDeps(
      testConfig({ QUEUE_PREFIX: `pay503_${crypto.randomBytes(3).toString('hex')}`, SANDBOX_ENABLED: '1' }),
      { role: 'test', pool: { min: 0, max: 1 } },
    );
    // Nothing listens on port 9 of loopback: every query of this web process is refused at once.
    unreachable = knexFactory({
      client: 'pg',
      connection: { host: '127.0.0.1', port: 9, user: 'nobody', database: 'nowhere' },
      acquireConnectionTimeout: 1_000,
      pool: { min: 0, max: 1 },
      // The refusals are expected; knex would print each one.
      log: {
        warn: () => undefined,
        error: () => undefined,
        debug: () => undefined,
        deprecate: () => undefined,
      },
    });
    server = await startServer({ ...deps, knex: unreachable });
  });
  after(async () => {
    await server?.close();
    await unreachable?.destroy();
    await deps?.close().catch(() => undefined);
  });

  it('answers a JSON PlatformError with Retry-After, which the document lists for the operation', async () => {
    // A genuine reference: the action goes on to read the payment, and meets the unreachable database.
    const ref = new PaymentPageRefs(deps.appSecret).ref(1);
    const res = await server.request(`/pay/payments/${ref}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'outcome=paid',
    });
    expect(res.status, res.text).to.equal(503);
    expect(res.headers.get('content-type')).to.match(/application\/json/);
    expect(res.headers.get('retry-after')).to.match(/^\d+$/);
    expect(res.body).to.deep.equal({
      error_code: 'service_unavailable',
      message: res.body.message,
      doc_url: '/docs/errors.md#service_unavailable',
    });
    expect(res.body.message).to.be.a('string');
  });
});
