import crypto from 'node:crypto';
import { expect } from 'chai';
import { Model } from 'objection';
import pg from 'pg';
import { prepareLicenseAnswers } from '../../../api/license/answer';
import { migrateDatabase } from '../../../db/migrate';
import type { License, Product } from '../../../db/models';
import { configWith } from '../../../shared/config';
import { createDeps, Deps } from '../../../shared/deps';
import { createStore } from '../../helpers/builders';
import { TEST_ENV } from '../../helpers/env';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';
import { PrivatePostgres, PrivateRedis } from '../../helpers/private-services';
import { insertLicense, licensedProduct } from '../license/support';
import { waitFor } from '../queues/support';

const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * /verify and /verify/reset in an outage (docs/license.md, "Outages"): with this suite's own Postgres
 * stopped or frozen, and its own Redis stopped, every answer is a 503 with Retry-After, signed with the key
 * the web process read into memory at start, bound to its request, and never encrypted, also for a product
 * whose encryption setting this process has never read.
 */
describe('outages: /verify answers signed 503s', function () {
  this.timeout(90_000);
  const BOUND_MS = 2_000;
  let redis: PrivateRedis;
  let postgres: PrivatePostgres;
  let web: Deps;
  let server: TestServer;
  let previousKnex: ReturnType<typeof Model.knex>;
  let plain: Product;
  let sealed: Product;
  let unread: Product;
  let licenses: { plain: License; sealed: License; unread: License };
  let publicKeyPem: string;

  before(async () => {
    [redis, postgres] = await Promise.all([PrivateRedis.start(), PrivatePostgres.start()]);
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query('create database commerce');
    await admin.end();
    await migrateDatabase(postgres.url('commerce'));
    const env = {
      ...TEST_ENV,
      DATABASE_URL: postgres.url('commerce'),
      REDIS_URL: redis.url,
      QUEUE_PREFIX: 'verify-outage',
      TRUST_PROXY: '1',
      DEPENDENCY_TIMEOUT_MS: '1000',
    };
    previousKnex = Model.knex();
    web = await createDeps(configWith(env, {}), { role: 'web', pool: { min: 0, max: 6 } });
    Model.knex(web.knex);
    // What the web process does before it listens (api/server.ts).
    await prepareLicenseAnswers(web);
    server = await startServer(web);
    const store = await createStore({ name: 'Verify Outage Store' });
    plain = await licensedProduct(store, web.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 3,
    });
    sealed = await licensedProduct(store, web.cipher, {
      license_encrypt: true,
      license_lock_type: 'hwid',
      license_max_activations: 3,
    });
    unread = await licensedProduct(store, web.cipher, { license_encrypt: true });
    licenses = {
      plain: await insertLicense(plain),
      sealed: await insertLicense(sealed),
      unread: await insertLicense(unread),
    };
    const key = await web.knex('platform_settings').where({ key: 'license_signing_key' }).first('value');
    publicKeyPem = String(
      crypto.createPublicKey(crypto.createPrivateKey(web.cipher.decrypt(String(key.value)))).export({
        format: 'pem',
        type: 'spki',
      }),
    );
    // Before the outage: both products answer, the sealed one encrypted (its settings are now cached).
    const res = await send('/verify', {
      product_id: sealed.id,
      license_key: licenses.sealed.key,
      hwid: 'PC-1',
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.encrypted).to.equal(true);
  });

  after(async () => {
    redis?.thaw();
    postgres?.thaw();
    await server?.close();
    await web?.close();
    Model.knex(previousKnex);
    await Promise.allSettled([redis?.destroy(), postgres?.destroy()]);
  });

  function send(path: string, body: Record<string, unknown>): Promise<TestResponse> {
    return server.request(path, { method: 'POST', json: body, headers: { 'X-Forwarded-For': randomIp() } });
  }

  /** Sends within the bound and checks a signed, bound, plain 503 with Retry-After. */
  async function expectSigned503(path: string, body: Record<string, unknown>): Promise<void> {
    const started = Date.now();
    const res = await send(path, { ...body, nonce: 'outage-1' });
    const elapsed = Date.now() - started;
    expect(elapsed, `${path} answered after ${elapsed} ms`).to.be.below(BOUND_MS);
    expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).to.equal(503);
    expect(res.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
    const signature = Buffer.from(res.headers.get('x-signature') ?? '', 'base64');
    expect(crypto.verify(null, Buffer.from(res.text, 'utf8'), publicKeyPem, signature), 'signed').to.equal(
      true,
    );
    expect(res.body, 'never encrypted').to.not.have.property('encrypted');
    expect(res.body).to.include({ success: false, error_code: 'SERVER_ERROR', nonce: 'outage-1' });
    expect(res.body.timestamp).to.be.a('number');
    expect(res.body.request).to.deep.equal({
      product_id: body.product_id,
      license_key_sha256: sha256(String(body.license_key)),
      hwid: typeof body.hwid === 'string' ? body.hwid : null,
    });
  }

  async function everyPath(): Promise<void> {
    // A new hwid (a write), a product this process has never read (encryption unknown), the sealed
    // product, and a self-service reset.
    await expectSigned503('/verify', { product_id: plain.id, license_key: licenses.plain.key, hwid: 'NEW' });
    await expectSigned503('/verify', { product_id: unread.id, license_key: licenses.unread.key });
    await expectSigned503('/verify', {
      product_id: sealed.id,
      license_key: licenses.sealed.key,
      hwid: 'PC-2',
    });
    await expectSigned503('/verify/reset', { product_id: sealed.id, license_key: licenses.sealed.key });
  }

  async function waitHealthy(): Promise<void> {
    await waitFor(
      'verify answers again',
      async () =>
        (await send('/verify', { product_id: plain.id, license_key: licenses.plain.key, hwid: 'BACK' }))
          .status === 200,
      20_000,
      200,
    );
  }

  it('Postgres stopped: signed 503s with Retry-After, the key read from memory', async () => {
    await postgres.stop();
    try {
      await everyPath();
    } finally {
      await postgres.start();
    }
    await waitHealthy();
  });

  it('Postgres frozen: signed 503s with Retry-After within the bound', async () => {
    postgres.freeze();
    try {
      await everyPath();
    } finally {
      postgres.thaw();
    }
    await waitHealthy();
  });

  it('Redis stopped: the rate limit cannot count, a signed 503 with Retry-After', async () => {
    await redis.stop();
    try {
      await expectSigned503('/verify', {
        product_id: sealed.id,
        license_key: licenses.sealed.key,
        hwid: 'PC-1',
      });
      await expectSigned503('/verify/reset', {
        product_id: plain.id,
        license_key: licenses.plain.key,
        hwid: 'x',
      });
    } finally {
      await redis.start();
    }
    await waitHealthy();
  });
});
