import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { Model } from 'objection';
import { migrateDatabase } from '../../../db/migrate';
import { License, Product, Store } from '../../../db/models';
import { Cipher } from '../../../shared/crypto';
import { createDeps, Deps, StartupError } from '../../../shared/deps';
import { encryptCredentials } from '../../../shared/providers/credentials';
import { deleteKeysWithPrefix } from '../../../shared/redis';
import { credentialsFor } from '../../../shared/services/payment-records/credentials';
import { createEndpoint } from '../../../shared/services/webhooks/endpoints';
import { resealAll } from '../../../shared/services/secrets/sealed-data';
import { SEALED_COLUMNS } from '../../../shared/sealed-columns';
import { createPaymentMethod, createStore } from '../../helpers/builders';
import { testConfig } from '../../helpers/deps';
import { TEST_ENV, TEST_QUEUE_PREFIX, testDatabaseUrl } from '../../helpers/env';
import { startServer } from '../../helpers/http';
import { embedClient, latestCode } from '../../helpers/otp';
import { expectRefusal, insertLicense, licensedProduct, verify } from '../license/support';

const ROOT = path.resolve(__dirname, '../../..');
const SECRET_A = 'rotation-secret-A-'.padEnd(40, 'a');
const SECRET_B = 'rotation-secret-B-'.padEnd(40, 'b');

/** A value sealed the way the platform sealed before key ids existed (`v1.`), under `secret`. */
function sealV1(secret: string, plain: string): string {
  const key = Buffer.from(crypto.hkdfSync('sha256', secret, 'commerce-platform', 'at-rest', 32));
  const iv = crypto.randomBytes(12);
  const c = crypto.createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return 'v1.' + Buffer.concat([iv, c.getAuthTag(), data]).toString('base64url');
}

/** Runs a command of the project from its sources (as production-start.test.ts starts the processes). */
function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    const timer = setTimeout(() => child.kill('SIGTERM'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * APP_SECRET rotation through APP_SECRET_PREVIOUS and `secrets:rotate` (docs/security.md, "Rotating
 * APP_SECRET"), on a database of its own: a platform that sealed under secret A serves with B and A as the
 * previous secret, is rotated, then serves with B alone, the License API's public key and the stores'
 * credentials and webhook secrets unchanged throughout; a start whose secrets open nothing refuses.
 */
describe('APP_SECRET rotation', function () {
  this.timeout(120_000);

  const dbName = `${new URL(testDatabaseUrl).pathname.slice(1)}_rot`;
  const dbUrl = Object.assign(new URL(testDatabaseUrl), { pathname: `/${dbName}` }).toString();
  const prefix = `${TEST_QUEUE_PREFIX}_rot`;
  let admin: Knex;
  let boundKnex: Knex | undefined;
  const opened: Deps[] = [];

  const env = (secrets: { APP_SECRET: string; APP_SECRET_PREVIOUS?: string }): NodeJS.ProcessEnv => ({
    DATABASE_URL: dbUrl,
    QUEUE_PREFIX: prefix,
    ...secrets,
  });
  /** A web process's wiring (with its start-time check of the sealed data) under `secrets`. */
  async function web(secrets: { APP_SECRET: string; APP_SECRET_PREVIOUS?: string }): Promise<Deps> {
    const deps = await createDeps(testConfig(env(secrets)), { role: 'web', pool: { min: 0, max: 3 } });
    opened.push(deps);
    return deps;
  }
  /** GET /verify/public-key; then POST /verify from each machine, answering the statuses. */
  async function licenseApi(deps: Deps, machines: string[]): Promise<{ key: string; statuses: number[] }> {
    const server = await startServer(deps);
    try {
      const res = await server.request('/verify/public-key');
      expect(res.status, res.text).to.equal(200);
      const statuses: number[] = [];
      for (const hwid of machines) {
        const answer = await verify(server, { product_id: product.id, license_key: license.key, hwid });
        if (answer.status !== 200) expectRefusal(answer, 403, 'ACTIVATION_LIMIT_REACHED');
        statuses.push(answer.status);
      }
      return { key: (res.body.data as { public_key: string }).public_key, statuses };
    } finally {
      await server.close();
    }
  }

  let store: Store;
  let product: Product;
  let license: License;
  let keyA: string;
  let webhookSecret: string;
  let webhookId: number;
  /** A buyer's sign-in code sent under A, entered after the restart with B. */
  const otp = { token: '', code: '' };
  const credentials = { secret_key: 'sk_test_rotation', publishable_key: 'pk_test_rotation' };

  before(async () => {
    admin = knexFactory({
      client: 'pg',
      connection: Object.assign(new URL(testDatabaseUrl), { pathname: '/postgres' }).toString(),
      pool: { min: 0, max: 1 },
    });
    await admin.raw(`create database "${dbName}"`);
    await migrateDatabase(dbUrl);
    boundKnex = Model.knex() as Knex | undefined;
  });
  after(async () => {
    if (boundKnex) Model.knex(boundKnex);
    await Promise.allSettled(opened.map((d) => d.close()));
    const redis = opened[0]?.redis;
    if (redis) await deleteKeysWithPrefix(redis, prefix).catch(() => undefined);
    await admin.raw(`drop database if exists "${dbName}" with (force)`);
    await admin.destroy();
  });

  it('seals under A: signing key, provider credentials (one in the envelope from before key ids), webhook secret', async () => {
    const a = await web({ APP_SECRET: SECRET_A });
    Model.knex(a.knex);
    store = await createStore();
    // One machine may hold the license; its hardware id is kept as a keyed hash under A.
    product = await licensedProduct(store, a.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    license = await insertLicense(product);
    const first = await licenseApi(a, ['machine-1']);
    expect(first.statuses).to.deep.equal([200]);
    keyA = first.key;
    await createPaymentMethod(store, {
      method: 'card',
      provider: 'moyasar',
      credentials_encrypted: encryptCredentials(a.cipher, credentials),
    });
    await createPaymentMethod(store, {
      method: 'mada',
      provider: 'moyasar',
      credentials_encrypted: sealV1(SECRET_A, JSON.stringify(credentials)),
    });
    const endpoint = await createEndpoint(a, store.id, {
      url: 'https://hooks.example.com/x',
      events: ['order.paid'],
    });
    webhookSecret = endpoint.secret;
    webhookId = endpoint.id;
    const server = await startServer(a);
    try {
      const started = await embedClient(server, store.embed_key).post('/api/embed/auth/start', {
        product_id: product.id,
        country_code: '966',
        phone: '551234567',
      });
      expect(started.status, started.text).to.equal(200);
      otp.token = (started.body.data as { session_token: string }).session_token;
      otp.code = await latestCode(a, '966551234567');
    } finally {
      await server.close();
    }
    // A Merchant API order's idempotent answer, sealed inside a jsonb column.
    await a.knex('idempotency_records').insert({
      store_id: store.id,
      scope: 'merchant-order',
      request_hash: 'r'.repeat(64),
      response: JSON.stringify({ sealed: a.cipher.encrypt(JSON.stringify({ order_id: 1 })) }),
      expires_at: new Date(Date.now() + 86_400_000),
    });
    const row = await a.knex('store_payment_methods').where({ store_id: store.id, method: 'card' }).first();
    expect(row.credentials_encrypted).to.match(new RegExp(`^v2\\.${a.cipher.keyId}\\.`));
  });

  it('a start with B alone, or with B and an unrelated previous secret, refuses naming APP_SECRET', async () => {
    for (const [role, secrets] of [
      ['web', { APP_SECRET: SECRET_B }],
      ['worker', { APP_SECRET: SECRET_B }],
      ['scheduler', { APP_SECRET: SECRET_B, APP_SECRET_PREVIOUS: 'unrelated-secret-'.padEnd(40, 'u') }],
    ] as const) {
      const err = await createDeps(testConfig(env(secrets)), { role, pool: { min: 0, max: 1 } }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err).to.be.instanceOf(StartupError);
      expect(err!.message).to.include('APP_SECRET').and.not.to.include('unable to authenticate');
    }
    // The real process: exits non-zero with the message on stderr, never a bare crypto error.
    const started = await run(['api/server.ts'], {
      ...TEST_ENV,
      ...env({ APP_SECRET: SECRET_B }),
      NODE_ENV: 'production',
      PORT: '1',
      LOG_LEVEL: 'error',
    });
    expect(started.code, started.stderr).to.equal(1);
    expect(started.stderr).to.include('APP_SECRET does not open the data sealed in this database');
    expect(started.stderr).not.to.include('unable to authenticate');
  });

  it('serves with APP_SECRET=B, APP_SECRET_PREVIOUS=A: same public key, activation, credentials, webhook secret', async () => {
    const ba = await web({ APP_SECRET: SECRET_B, APP_SECRET_PREVIOUS: SECRET_A });
    // machine-1 is still the license's one machine (found under A, re-keyed under B); machine-2 is refused.
    expect(await licenseApi(ba, ['machine-1', 'machine-2'])).to.deep.equal({
      key: keyA,
      statuses: [200, 403],
    });
    for (const method of ['card', 'mada'] as const)
      expect(await credentialsFor(ba, { store_id: store.id, method, provider: 'moyasar' })).to.deep.equal(
        credentials,
      );
    const row = await ba.knex('merchant_webhook_endpoints').where({ id: webhookId }).first();
    expect(ba.cipher.decrypt(row.secret_encrypted)).to.equal(webhookSecret);
    const server = await startServer(ba);
    try {
      const verified = await embedClient(server, store.embed_key).post('/api/embed/auth/verify', {
        session_token: otp.token,
        code: otp.code,
      });
      expect(verified.status, verified.text).to.equal(200);
    } finally {
      await server.close();
    }
  });

  it('secrets:rotate re-seals everything under B; a second run re-seals nothing', async () => {
    const rotated = await run(['scripts/secrets-rotate.ts'], {
      ...TEST_ENV,
      ...env({ APP_SECRET: SECRET_B, APP_SECRET_PREVIOUS: SECRET_A }),
      LOG_LEVEL: 'error',
    });
    expect(rotated.code, rotated.stderr + rotated.stdout).to.equal(0);
    // The check value, the signing key, two credentials, one webhook secret, one idempotent answer.
    expect(rotated.stdout).to.match(/secrets:rotate: 6 re-sealed under APP_SECRET, 0 already under it/);
    expect(rotated.stdout).to.include('store_payment_methods.credentials_encrypted: 2 re-sealed');

    const ba = opened[opened.length - 1]!;
    const b = new Cipher(SECRET_B);
    for (const c of SEALED_COLUMNS) {
      const rows = (await ba
        .knex(c.table)
        .where(c.where ?? {})
        .select(c.column)) as Record<string, unknown>[];
      for (const row of rows) {
        const value = row[c.column];
        const sealed = c.jsonField ? (value as Record<string, string> | null)?.[c.jsonField] : value;
        if (typeof sealed === 'string') expect(b.isCurrent(sealed), c.table).to.equal(true);
      }
    }
    const again = await resealAll(ba.knex, ba.cipher);
    expect(again.reduce((n, r) => n + r.resealed + r.changed + r.unreadable, 0)).to.equal(0);
    expect(again.reduce((n, r) => n + r.current, 0)).to.equal(6);
    const answer = await ba.knex('idempotency_records').where({ store_id: store.id }).first('response');
    expect(JSON.parse(b.decrypt((answer.response as { sealed: string }).sealed))).to.deep.equal({
      order_id: 1,
    });
  });

  it('serves with APP_SECRET=B alone after the rotation: same public key, activation, credentials, webhook secret', async () => {
    const b = await web({ APP_SECRET: SECRET_B });
    expect(await licenseApi(b, ['machine-1', 'machine-2'])).to.deep.equal({
      key: keyA,
      statuses: [200, 403],
    });
    for (const method of ['card', 'mada'] as const)
      expect(await credentialsFor(b, { store_id: store.id, method, provider: 'moyasar' })).to.deep.equal(
        credentials,
      );
    const row = await b.knex('merchant_webhook_endpoints').where({ id: webhookId }).first();
    expect(b.cipher.decrypt(row.secret_encrypted)).to.equal(webhookSecret);
  });

  it('the registry names every sealed column of the schema (an `_encrypted` column not listed fails here)', async () => {
    const { rows } = await opened[0]!.knex.raw<{ rows: { table_name: string; column_name: string }[] }>(
      "select table_name, column_name from information_schema.columns where table_schema = 'public' and column_name like '%\\_encrypted'",
    );
    expect(rows.length).to.be.greaterThan(0);
    for (const { table_name: table, column_name: column } of rows)
      expect(
        SEALED_COLUMNS.some((c) => c.table === table && c.column === column),
        `${table}.${column} is sealed: add it to shared/sealed-columns.ts`,
      ).to.equal(true);
  });

  it('a rotation that meets a concurrent write keeps the new value', async () => {
    const writer = await web({
      APP_SECRET: 'rotation-secret-C-'.padEnd(40, 'c'),
      APP_SECRET_PREVIOUS: SECRET_B,
    });
    const [pm] = await writer.knex('store_payment_methods').where({ store_id: store.id, method: 'card' });
    const fresh = { secret_key: 'sk_test_new', publishable_key: 'pk_test_new' };
    // The merchant saves new credentials in a transaction still open when the rotation reads the row...
    const trx = await writer.knex.transaction();
    await trx('store_payment_methods')
      .where({ id: pm.id })
      .update({ credentials_encrypted: encryptCredentials(writer.cipher, fresh) });
    const rotation = resealAll(writer.knex, writer.cipher, { batchSize: 1 });
    // ...and the rotation's write of the old value waits on that row (a real lock wait in Postgres).
    for (let i = 0; i < 800; i += 1) {
      const { rows } = await admin.raw<{ rows: unknown[] }>(
        "select 1 from pg_stat_activity where datname = ? and wait_event_type = 'Lock' and query ilike 'update%store_payment_methods%'",
        [dbName],
      );
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await trx.commit();
    const reports = await rotation;
    const report = reports.find((r) => r.column === 'store_payment_methods.credentials_encrypted')!;
    expect(report.changed).to.equal(1);
    expect(report.resealed).to.equal(1);
    expect(
      await credentialsFor(writer, { store_id: store.id, method: 'card', provider: 'moyasar' }),
    ).to.deep.equal(fresh);
  });
});
