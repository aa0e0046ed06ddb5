import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import knexFactory from 'knex';
import { migrateDatabase } from '../db/migrate';
import { configWith } from '../shared/config';
import { createDeps } from '../shared/deps';
import { createLogger } from '../shared/logger';
import { deleteKeysWithPrefix } from '../shared/redis';
import { loadFixture, readFixtureFile } from '../shared/services/seed';
import { issueCustomerToken } from '../shared/services/tokens';
import { Customer, Product } from '../db/models';
import { batchBody, measureIngest, singleBody } from './bench-analytics';
import { provision } from './lib/provision';
import { freePort, sleep } from './lib/services';

/**
 * `npm run bench`: the web process under load, each scenario beside a baseline measured in the same run
 * on the same process (GET /healthz: Koa and the shared middleware, no I/O), so the figures say what each
 * endpoint costs on top of the HTTP floor of this machine rather than an absolute number.
 *
 * Runs against a database and Redis prefix of its own, with RATE_LIMITS=off (CONTRACT section 2).
 * BENCH_SECONDS (default 8) and BENCH_CONNECTIONS (default 20) tune the load.
 */

const root = path.resolve(__dirname, '..');
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

interface Scenario {
  name: string;
  /** What the request exercises, for the table. */
  what: string;
  request: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };
  /** Statuses that count as a correct answer for this scenario. */
  expect: number[];
}

interface Result {
  scenario: Scenario;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  unexpected: number;
}

async function runScenario(
  base: string,
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<Result> {
  const { method, path: url, headers, body } = scenario.request;
  const result = await autocannon({
    url: base + url,
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duration: seconds,
    connections,
    // Throughput of finished answers: no request is pipelined behind another.
    pipelining: 1,
  });
  const ok = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => scenario.expect.includes(Number(status)))
    .reduce((sum, [, stats]) => sum + (stats as { count: number }).count, 0);
  return {
    scenario,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    unexpected: result.requests.total - ok,
  };
}

async function waitForHealth(base: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error('the web process did not answer /healthz in time');
}

async function postJson(
  base: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, unknown>;
}

/** The bench's queues and counters live under their own prefix; they go when it ends. */
async function deleteKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    await deleteKeysWithPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

export async function main(): Promise<number> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 8);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
  const services = await provision({
    root,
    env: process.env,
    databaseVariables: ['BENCH_DATABASE_URL', 'DATABASE_URL'],
    log: (line) => say(line),
  });
  const runId = crypto.randomBytes(3).toString('hex');
  const dbName = `commerce_bench_${runId}`;
  const serverUrl = new URL(services.postgresServerUrl);
  const admin = knexFactory({ client: 'pg', connection: serverUrl.toString(), pool: { min: 0, max: 1 } });
  const dbUrl = new URL(services.postgresServerUrl);
  dbUrl.pathname = `/${dbName}`;
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: services.redisUrl,
    QUEUE_PREFIX: `bench_${runId}`,
    RATE_LIMITS: 'off',
    LOG_LEVEL: 'warn',
    APP_SECRET: crypto.randomBytes(32).toString('hex'),
  };
  let web: ReturnType<typeof spawn> | null = null;
  try {
    await admin.raw(`create database "${dbName}"`);
    await migrateDatabase(env.DATABASE_URL);
    const deps = await createDeps(configWith(env, {}), {
      role: 'script',
      logger: createLogger('warn', 'bench'),
    });
    const manifest = await loadFixture(deps, await readFixtureFile(path.join(root, 'fixtures/demo.json')));
    const store = Object.values(manifest.stores)[0];
    const productId = Object.values(store.products)[0].id;
    // The checkout needs a product without required custom fields and with stock to spare.
    const plain = await Product.query(deps.knex)
      .where({ store_id: store.id, active: true, type: 'product' })
      .whereRaw("not exists (select 1 from jsonb_array_elements(fields) f where (f->>'required')::boolean)")
      .orderBy('id')
      .first();
    const customer = await Customer.query(deps.knex).findById(Object.values(store.customers)[0].id);
    const embedToken = (await issueCustomerToken(customer!, 'embed', deps.knex)).token;
    // License verify: the demo license (hwid lock), one machine calling again and again.
    const demoLicense = Object.values(store.licenses)[0];
    const licenseProductId = demoLicense
      ? ((await deps.knex('licenses').where({ id: demoLicense.id }).first('product_id'))
          ?.product_id as number)
      : null;
    await deps.close();

    const port = await freePort(3990);
    const base = `http://127.0.0.1:${port}`;
    web = spawn(process.execPath, ['--require', 'tsx/cjs', 'api/server.ts'], {
      cwd: root,
      env: { ...env, PORT: String(port), PUBLIC_BASE_URL: base },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitForHealth(base);

    const embed = { 'x-embed-key': store.embed_key };
    const guest = await postJson(
      base,
      '/api/embed/guest/checkout',
      {
        product_id: plain?.id ?? productId,
        quantity: 1,
        customer_first_name: 'Bench',
        customer_last_name: 'Mark',
        customer_email: 'bench@example.com',
        customer_phone: '500000002',
        customer_country_code: '966',
      },
      embed,
    );
    const checkoutUrl = (guest.data as { checkout_url?: string } | undefined)?.checkout_url;

    const scenarios: Scenario[] = [
      {
        name: 'baseline',
        what: 'GET /healthz (no I/O)',
        request: { method: 'GET', path: '/healthz' },
        expect: [200],
      },
      {
        name: 'product',
        what: 'GET /api/embed/product/{id} (embed guards + catalogue reads)',
        request: { method: 'GET', path: `/api/embed/product/${productId}`, headers: embed },
        expect: [200],
      },
      {
        name: 'auth/validate',
        what: 'POST /api/embed/auth/validate (token lookup)',
        request: {
          method: 'POST',
          path: '/api/embed/auth/validate',
          headers: { ...embed, authorization: `Bearer ${embedToken}` },
          body: JSON.stringify({ product_id: productId }),
        },
        expect: [200],
      },
      {
        name: 'auth/start',
        what: 'POST /api/embed/auth/start (insert + enqueue)',
        request: {
          method: 'POST',
          path: '/api/embed/auth/start',
          headers: embed,
          body: JSON.stringify({ product_id: productId, country_code: '966', phone: '500000003' }),
        },
        expect: [200],
      },
    ];
    if (checkoutUrl) {
      scenarios.push({
        name: 'payment/status',
        what: 'GET /api/embed/payment/status/{checkoutUrl} (polling)',
        request: { method: 'GET', path: `/api/embed/payment/status/${checkoutUrl}` },
        expect: [200],
      });
    } else {
      say('bench: guest checkout unavailable; the payment/status scenario is left out');
    }

    if (demoLicense && licenseProductId) {
      scenarios.push({
        name: 'license/verify',
        what: 'POST /verify, same key and hwid (signed; cache: one Redis MGET, no Postgres)',
        request: {
          method: 'POST',
          path: '/verify',
          body: JSON.stringify({
            product_id: licenseProductId,
            license_key: demoLicense.key,
            hwid: 'BENCH-MACHINE-1',
          }),
        },
        expect: [200],
      });
    }

    // Analytics collection, on the demo store's domain (the store is found by Host). The API only validates
    // and queues; the ingest figure below measures the writer.
    const analyticsHeaders = { host: 'demo.localhost', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' };
    scenarios.push(
      {
        name: 'analytics/collect',
        what: 'POST /api/storefront/analytics/collect (one event, queued)',
        request: {
          method: 'POST',
          path: '/api/storefront/analytics/collect',
          headers: analyticsHeaders,
          body: singleBody(),
        },
        expect: [202],
      },
      {
        name: 'analytics/collect/batch',
        what: 'POST .../collect/batch (30 events, queued)',
        request: {
          method: 'POST',
          path: '/api/storefront/analytics/collect/batch',
          headers: analyticsHeaders,
          body: batchBody(),
        },
        expect: [202],
      },
    );

    // Ingest first, on an empty queue and table: the HTTP scenarios after it leave jobs behind.
    const ingest = await measureIngest({
      base,
      host: 'demo.localhost',
      env: { ...env, PUBLIC_BASE_URL: base },
      cwd: root,
      databaseUrl: env.DATABASE_URL,
      events: Number(process.env.BENCH_INGEST_EVENTS ?? 30_000),
      say,
    });

    say(`bench: ${seconds} s per scenario, ${connections} connections, against ${base}`);
    const results: Result[] = [];
    for (const scenario of scenarios) {
      const result = await runScenario(base, scenario, seconds, connections);
      say(`bench: ${scenario.name}: ${result.rps.toFixed(0)} req/s`);
      results.push(result);
    }
    const baseline = results[0].rps;
    say('');
    say('| scenario | what it exercises | req/s | % of baseline | p50 ms | p99 ms | non-2xx/errors |');
    say('|---|---|---:|---:|---:|---:|---:|');
    for (const r of results) {
      say(
        `| ${r.scenario.name} | ${r.scenario.what} | ${r.rps.toFixed(0)} | ${((r.rps / baseline) * 100).toFixed(0)}% | ` +
          `${r.p50} | ${r.p99} | ${r.unexpected + r.errors} |`,
      );
    }
    say('');
    say('| ingest | events | events/s | % of raw COPY |');
    say('|---|---:|---:|---:|');
    say(
      `| analytics worker (API -> queue -> batched INSERT) | ${ingest.events} | ${ingest.ingestPerSecond.toFixed(0)} | ${((ingest.ingestPerSecond / ingest.copyPerSecond) * 100).toFixed(0)}% |`,
    );
    say(`| raw COPY of the same rows | ${ingest.events} | ${ingest.copyPerSecond.toFixed(0)} | 100% |`);
    return results.some((r) => r.unexpected + r.errors > 0) ? 1 : 0;
  } finally {
    if (web && web.exitCode === null) {
      web.kill('SIGTERM');
      await new Promise((resolve) => web!.once('exit', resolve));
    }
    await admin.raw(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
    await deleteKeys(services.redisUrl, `bench_${runId}`).catch(() => undefined);
    await admin.destroy();
    await services.stop();
  }
}
