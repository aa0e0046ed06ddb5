import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import knexFactory from 'knex';
import { migrateDatabase } from '../db/migrate';
import { configWith } from '../shared/config';
import { createDeps, Deps } from '../shared/deps';
import { createLogger } from '../shared/logger';
import { deleteKeysWithPrefix } from '../shared/redis';
import { loadFixture, readFixtureFile } from '../shared/services/seed';
import { issueCustomerToken } from '../shared/services/tokens';
import { createMerchantToken } from '../shared/services/tokens/merchant';
import { compactOrderRollups } from '../shared/services/statistics/rollups';
import { createSession } from '../shared/services/staff/sessions';
import { SESSION_COOKIE } from '../api/dashboard/session';
import { Customer, Product } from '../db/models';
import { batchBody, measureIngest, singleBody } from './bench-analytics';
import {
  checkoutStatements,
  FLASH_STEPS,
  flashSaleFaults,
  rawCheckoutCeiling,
  runFlashSale,
  type CheckoutStatements,
  type FlashSaleResult,
} from './bench-checkout';
import { createBuyerSession } from '../shared/services/account/sessions';
import { ACCOUNT_COOKIE } from '../api/account/session';
import { downloadToken } from '../shared/services/files/links';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { readProcfile } from './lib/procfile';
import { provision } from './lib/provision';
import { buildIsCurrent } from './lib/build-stamp';
import { runOpenLoop } from './lib/open-loop';
import { freePort, sleep } from './lib/services';

/**
 * `npm run bench`: every hot path of the web process under load, each figure beside three
 * ceilings measured in the same run on the same machine:
 *
 * - a bare `node:http` server answering the same JSON as `/healthz` (what Node itself can do here),
 * - a bare Koa with `@koa/router` answering that JSON (what the chosen framework can do: the ceiling the
 *   targets are shares of), and
 * - `GET /healthz` of the web process (Koa and the shared middleware, no I/O).
 *
 * Each figure is printed beside its target (docs/performance.md), met or not.
 *
 * The web process runs as the Procfile runs it (compiled first: `node dist/api/server.js`),
 * `NODE_ENV=production` with the default log level, behind
 * `TRUST_PROXY=1`, and rate limits ON: every request names another client address in X-Forwarded-For, so
 * the per-IP limits are consumed (one Redis round trip) without refusing anyone. Scenarios whose traffic
 * would exceed the spec's global Embed limit (5,000 a minute) run on a second web process with
 * `RATE_LIMITS=off`, and the table says so. A worker process serves the OTP and message queues, so the
 * time until an OTP reaches the outbox driver is measured too.
 *
 * BENCH_SECONDS (default 8), BENCH_CONNECTIONS (default 50), BENCH_RATE (default 200, the fixed rate of
 * the auth/start and checkout scenarios), BENCH_MERCHANT_RATE (default 50, the Merchant reads),
 * BENCH_DASHBOARD_RATE (default 20, the dashboard pages; BENCH_DASHBOARD_PAGES=home,orders reads only
 * those of home, orders, order, products, product, customers, settings), BENCH_ORDERS (default 100,000, the demo store's
 * orders) and BENCH_INGEST_EVENTS (default 30,000) tune it. BENCH_QUICK=1
 * runs a short version (the test suite runs it once and checks only that every answer was right);
 * BENCH_ONLY=name,name runs some scenarios; BENCH_PROFILE=<dir> writes each web process's CPU profile.
 * Exits non-zero when any answer had an unexpected status (a dashboard page without Server-Timing too).
 */

const root = path.resolve(__dirname, '..');
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** The same answer as GET /healthz, from Node alone: the ceiling every figure is a share of. */
const BARE_SERVER = `
const http = require('node:http');
const body = JSON.stringify({ status: 'ok' });
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

/** The same answer again from Koa and @koa/router alone: the framework's own ceiling. */
const BARE_KOA_SERVER = `
const Koa = require('koa');
const Router = require('@koa/router');
const app = new Koa();
const router = new Router();
router.get('/healthz', (ctx) => { ctx.body = { status: 'ok' }; });
app.use(router.routes());
app.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

type Target = 'bare' | 'koa' | 'limited' | 'unlimited';

/** The web process counts of the scale curves (a correctness run stops at 2). */
const webCounts = (quick: boolean): number[] => (quick ? [1, 2] : [1, 2, 4]);

/**
 * A target of a scenario (docs/performance.md): a share of bare Koa's req/s, a p99 ceiling in ms, or a p99
 * ceiling of the server's own time (Server-Timing `app`) in ms.
 */
type Goal = { shareOfKoa: number } | { p99Below: number } | { serverP99Below: number };

interface Request {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Scenario {
  name: string;
  /** What the request exercises, for the table. */
  what: string;
  target: Target;
  request: Request;
  /** Changes request n (another client address, another phone); applied to every request sent. */
  vary?: (n: number, request: Request) => Request;
  /**
   * A fixed request rate instead of as fast as the connections go: requests due evenly, open loop, each
   * latency from when it was due (runAtRate, scripts/lib/open-loop.ts).
   */
  rate?: number;
  /** Statuses that count as a correct answer for this scenario. */
  expect: number[];
  goal?: Goal;
  /**
   * Reads each expected answer's `Server-Timing: app;dur=<ms>` (the dashboard's), by the page this names
   * from the request's path; an expected answer without it counts as wrong.
   */
  serverTiming?: (path: string) => string;
}

/** The server's own time (Server-Timing `app`) of a scenario's answers, in all and by page, in ms. */
interface ServerTimes {
  p50: number;
  p99: number;
  byPage: { page: string; answers: number; p50: number; p99: number }[];
}

interface Result {
  scenario: Scenario;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  /** Answers with another status, plus connection errors and timeouts. */
  wrong: number;
  /** What the wrong answers were: status (or `errors`, `timeouts`) and how many. */
  wrongBy: Record<string, number>;
  server?: ServerTimes;
}

/** The `dur` of the `app` metric of a Server-Timing header (`app;dur=12.3`), or null. */
function appDuration(header: string | string[] | undefined): number | null {
  for (const metric of [header ?? []].flat().join(',').split(',')) {
    const [name, ...params] = metric.split(';').map((part) => part.trim());
    if (name !== 'app') continue;
    const dur = params.find((param) => param.startsWith('dur='));
    const ms = dur ? Number(dur.slice('dur='.length)) : NaN;
    return Number.isFinite(ms) ? ms : null;
  }
  return null;
}

/** Each answer's page and Server-Timing, kept per connection: with no pipelining, one request at a time. */
interface TimedContext {
  page?: string;
}

/** A distinct client address per request (10.0.0.0/8), forwarded by the proxy the web process trusts. */
const clientAddress = (n: number): string => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
/** A store of `count` products (names in Arabic and English), for the store pages' scenarios. */
function benchCatalogue(count: number): object {
  return {
    stores: [
      {
        ref: 'bench-catalogue',
        slug: 'bench-catalogue',
        name: 'Bench catalogue',
        currency: 'SAR',
        description: 'A store of many products, to measure its pages.',
        payment_methods: { card: { provider: 'sandbox' } },
        categories: [{ ref: 'all', name: 'Everything', name_ar: 'كل شيء', slug: 'everything' }],
        products: Array.from({ length: count }, (_, i) => ({
          ref: `p${i}`,
          name: `Gift card ${i}`,
          name_ar: `بطاقة هدية ${i}`,
          description: `Gift card number ${i}, delivered at once.`,
          description_ar: `بطاقة هدية رقم ${i} تصلك فورًا.`,
          slug: `gift-card-${i}`,
          type: 'service',
          price: `${10 + (i % 90)}.00`,
          ...(i % 3 === 0 ? { sale_price: `${5 + (i % 90)}.00` } : {}),
          stock: i % 7 === 0 ? 0 : null,
          categories: ['all'],
        })),
      },
    ],
  };
}

/** A store selling `keys` keys of one code product by sandbox card: the flash sale's. */
function flashStore(keys: number): object {
  return {
    stores: [
      {
        ref: 'bench-flash',
        slug: 'bench-flash',
        name: 'Bench flash sale',
        currency: 'SAR',
        description: 'One product, few keys, many buyers.',
        payment_methods: { card: { provider: 'sandbox' } },
        products: [
          {
            ref: 'launch-key',
            name: 'Launch key',
            name_ar: 'مفتاح الإطلاق',
            description: 'A game key of the launch day.',
            description_ar: 'مفتاح لعبة يوم الإطلاق.',
            slug: 'launch-key',
            type: 'code',
            price: '15.00',
            codes: Array.from({ length: keys }, (_, i) => `FLASH-${String(i + 1).padStart(5, '0')}`),
          },
        ],
      },
    ],
  };
}

/** The store pages at `rate` a second, limits on (each request another client): page, product, search. */
function storePageScenarios(rate: number): Scenario[] {
  // The store and product pages' target is on their server time (Server-Timing `app`), the search's on
  // the whole answer.
  const page = (name: string, what: string, path: string): Scenario => ({
    name,
    what: `${what} at ${rate} req/s${name === 'store search' ? '' : ' (target on Server-Timing `app`)'}`,
    target: 'limited',
    rate,
    request: { method: 'GET', path },
    vary: fromClient,
    expect: [200],
    ...(name === 'store search'
      ? { goal: { p99Below: 20 } }
      : { goal: { serverP99Below: 20 }, serverTiming: () => name }),
  });
  return [
    page('store page', '`GET /s/{slug}` (500 products, first 48, Arabic)', '/s/bench-catalogue?lang=ar'),
    page(
      'product page',
      '`GET /s/{slug}/p/{product}` (English)',
      '/s/bench-catalogue/p/gift-card-250?lang=en',
    ),
    page(
      'store search',
      '`GET /s/{slug}/search` among 500 products',
      '/s/bench-catalogue/search?q=card%2049&lang=en',
    ),
  ];
}

const fromClient = (n: number, request: Request): Request => ({
  ...request,
  headers: { ...request.headers, 'x-forwarded-for': clientAddress(n) },
});

/**
 * A fixed-rate scenario, open loop (scripts/lib/open-loop.ts): requests due evenly at `rate` a second, each
 * latency measured from when it was due, so a server too slow for the rate shows in the latencies and as
 * req/s below the rate.
 */
async function runAtRate(
  bases: Record<Target, string>,
  scenario: Scenario,
  seconds: number,
): Promise<Result> {
  const first: Request = {
    ...scenario.request,
    headers: { 'content-type': 'application/json', ...scenario.request.headers },
  };
  const run = await runOpenLoop({
    base: bases[scenario.target],
    rate: scenario.rate!,
    seconds,
    requestFor: (n) => {
      const next = scenario.vary ? scenario.vary(n, first) : first;
      return { method: next.method, path: next.path, headers: next.headers ?? {}, body: next.body };
    },
  });
  const expected = run.answers.filter((a) => scenario.expect.includes(a.status));
  const times = scenario.serverTiming
    ? expected.flatMap((a) => {
        const ms = appDuration(a.headers['server-timing']);
        return ms === null ? [] : [{ page: scenario.serverTiming!(a.request.path), ms }];
      })
    : [];
  const untimed = scenario.serverTiming ? expected.length - times.length : 0;
  const wrongBy: Record<string, number> = {};
  for (const a of run.answers) {
    if (!scenario.expect.includes(a.status)) wrongBy[a.status] = (wrongBy[a.status] ?? 0) + 1;
  }
  if (untimed) wrongBy['no Server-Timing'] = untimed;
  if (run.errors) wrongBy.errors = run.errors;
  const latencies = run.answers.map((a) => a.ms);
  return {
    scenario,
    rps: Math.round(run.rps),
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    total: run.answers.length + run.errors,
    wrong: run.answers.length - expected.length + untimed + run.errors,
    wrongBy,
    ...(scenario.serverTiming ? { server: serverTimesOf(times) } : {}),
  };
}

async function runScenario(
  bases: Record<Target, string>,
  scenario: Scenario,
  seconds: number,
  connections: number,
): Promise<Result> {
  const { method, path: url, headers, body } = scenario.request;
  let sent = 0;
  const { vary, serverTiming } = scenario;
  const times: { page: string; ms: number }[] = [];
  let untimed = 0;
  if (scenario.rate) return runAtRate(bases, scenario, seconds);
  const result = await autocannon({
    url: bases[scenario.target] + url,
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duration: seconds,
    connections,
    // Throughput of finished answers: no request is pipelined behind another.
    pipelining: 1,
    ...(vary || serverTiming
      ? {
          requests: [
            {
              setupRequest: (req: autocannon.Request, context: object) => {
                const first: Request = {
                  method,
                  path: url,
                  headers: { 'content-type': 'application/json', ...headers },
                  body,
                };
                const next = vary ? vary(sent++, first) : first;
                if (serverTiming) (context as TimedContext).page = serverTiming(next.path);
                return { ...req, ...next };
              },
              ...(serverTiming
                ? {
                    onResponse: (
                      status: number,
                      _body: string,
                      context: object,
                      answer?: IncomingHttpHeaders,
                    ) => {
                      if (!scenario.expect.includes(status)) return;
                      // autocannon keeps the server's spelling of header names.
                      const header = Object.entries(answer ?? {}).find(
                        ([name]) => name.toLowerCase() === 'server-timing',
                      )?.[1];
                      const ms = appDuration(header);
                      if (ms === null) untimed++;
                      else times.push({ page: (context as TimedContext).page ?? '?', ms });
                    },
                  }
                : {}),
            },
          ],
        }
      : {}),
  });
  const ok = Object.entries(result.statusCodeStats ?? {})
    .filter(([status]) => scenario.expect.includes(Number(status)))
    .reduce((sum, [, stats]) => sum + (stats as { count: number }).count, 0);
  return {
    scenario,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    wrong: result.requests.total - ok + untimed + result.errors + result.timeouts,
    wrongBy: {
      ...Object.fromEntries(
        Object.entries(result.statusCodeStats ?? {})
          .filter(([status]) => !scenario.expect.includes(Number(status)))
          .map(([status, stats]) => [status, (stats as { count: number }).count]),
      ),
      ...(untimed ? { 'no Server-Timing': untimed } : {}),
      ...(result.errors ? { errors: result.errors } : {}),
      ...(result.timeouts ? { timeouts: result.timeouts } : {}),
    },
    ...(serverTiming ? { server: serverTimesOf(times) } : {}),
  };
}

/** The answers' Server-Timing in all and per page, in ms; the slowest page first (the one to look at). */
function serverTimesOf(times: { page: string; ms: number }[]): ServerTimes {
  const msOf = (page?: string) => times.filter((t) => !page || t.page === page).map((t) => t.ms);
  return {
    p50: percentile(msOf(), 50),
    p99: percentile(msOf(), 99),
    byPage: [...new Set(times.map((t) => t.page))]
      .map((page) => ({
        page,
        answers: msOf(page).length,
        p50: percentile(msOf(page), 50),
        p99: percentile(msOf(page), 99),
      }))
      .sort((a, b) => b.p99 - a.p99),
  };
}

async function waitForHealth(base: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${base} did not answer /healthz in time`);
}

async function postJson(
  base: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(base + url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Peak resident memory of a process (Linux: VmHWM), in MB; null elsewhere. */
function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function stop(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
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

/** Percentile of a list of numbers (nearest rank). */
function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * How long each OTP of the auth/start scenario took from the session's insert (the API) to the outbox
 * driver's insert (the worker), both stamped by Postgres. Waits until every one has arrived.
 */
async function otpDeliveryTimes(deps: Deps, since: Date, expected: number): Promise<number[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const rows = await deps
      .knex('otp_sessions as s')
      .join('outbound_messages as o', function joinOnPhone() {
        this.on('o.to', '=', deps.knex.raw("regexp_replace(s.e164, '[^0-9]', '', 'g')")).andOn(
          'o.purpose',
          '=',
          deps.knex.raw("'otp'"),
        );
      })
      .where('s.created_at', '>=', since)
      .select(deps.knex.raw('extract(epoch from (o.created_at - s.created_at)) * 1000 as ms'));
    if (rows.length >= expected || Date.now() > deadline) {
      return rows.map((r: { ms: string | number }) => Number(r.ms));
    }
    await sleep(250);
  }
}

/**
 * `count` orders of one product over the last 400 days, in every status, written by one INSERT ... SELECT
 * (seconds for 100,000): the history of a busy store for the Merchant read scenarios.
 */
async function seedOrders(deps: Deps, storeId: number, productId: number, count: number): Promise<void> {
  await deps.knex.raw(
    `with o as (
       insert into orders (store_id, status, customer_first_name, customer_last_name, customer_email,
                           customer_country_code, customer_phone, subtotal_minor, total_minor, currency,
                           payment_method, source, created_at, updated_at)
       select ?, 1 + (g % 6), 'Bench', 'Order', 'b' || g || '@example.com', '966',
              '55' || lpad(g::text, 7, '0'), 1000 + g % 5000, 1000 + g % 5000, 'SAR', 'card', 'embed',
              now() - (g % 400) * interval '1 day' - (g % 86400) * interval '1 second',
              now() - (g % 400) * interval '1 day'
         from generate_series(1, ?) g
       returning id, total_minor
     )
     insert into order_items (order_id, product_id, name, type, quantity, unit_price_minor, total_minor)
     select id, ?, 'Bench product', 'product', 1, total_minor, total_minor from o`,
    [storeId, count, productId],
  );
  // As the running platform leaves them: the order rollups' deltas folded (the scheduler's order-rollups task
  // does it every minute; the bench runs no scheduler), and the tables as autovacuum leaves them once
  // settled (statistics, and the visibility map index-only scans need).
  await compactOrderRollups(deps.knex);
  await deps.knex.raw('vacuum analyze orders, order_items');
}

export async function main(): Promise<number> {
  const quick = process.env.BENCH_QUICK === '1';
  const seconds = Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 8));
  const connections = Number(process.env.BENCH_CONNECTIONS ?? (quick ? 10 : 50));
  const rate = Number(process.env.BENCH_RATE ?? 200);
  const pageRate = Number(process.env.BENCH_PAGE_RATE ?? 100);
  const ingestEvents = Number(process.env.BENCH_INGEST_EVENTS ?? (quick ? 3_000 : 30_000));
  const orderCount = Number(process.env.BENCH_ORDERS ?? (quick ? 2_000 : 100_000));
  const merchantRate = Number(process.env.BENCH_MERCHANT_RATE ?? 50);
  const dashboardRate = Number(process.env.BENCH_DASHBOARD_RATE ?? 20);
  // BENCH_SCALE=0 skips the scale curves (1, 2 and 4 web processes; 1 and 2 analytics workers).
  const scale = process.env.BENCH_SCALE !== '0';
  const services = await provision({
    root,
    env: process.env,
    databaseVariables: ['BENCH_DATABASE_URL', 'DATABASE_URL'],
    log: (line) => say(line),
  });
  const runId = crypto.randomBytes(3).toString('hex');
  const dbName = `commerce_bench_${runId}`;
  const storageDir = mkdtempSync(path.join(os.tmpdir(), `bench-files-${runId}-`));
  const flashKeys = Number(process.env.BENCH_FLASH_KEYS ?? (quick ? 10 : 100));
  const flashBuyers = Number(process.env.BENCH_FLASH_BUYERS ?? (quick ? 100 : 2_000));
  const flashSeconds = Number(process.env.BENCH_FLASH_SECONDS ?? (quick ? 2 : 20));
  const admin = knexFactory({
    client: 'pg',
    connection: services.postgresServerUrl,
    pool: { min: 0, max: 1 },
  });
  const dbUrl = new URL(services.postgresServerUrl);
  dbUrl.pathname = `/${dbName}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: services.redisUrl,
    QUEUE_PREFIX: `bench_${runId}`,
    APP_SECRET: crypto.randomBytes(32).toString('hex'),
    MESSAGING_DRIVER: 'outbox',
    TRUST_PROXY: '1',
    TRUST_PROXY_HOPS: '1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    // The SMS-pumping guard's daily budget of OTP messages per store (1,000 by default) would refuse the
    // auth/start scenario's 1,600 codes: the bench measures the path, not the guard.
    OTP_STORE_DAILY_MESSAGES: '1000000',
    // The flash sale pays through the sandbox provider (off in production unless enabled).
    SANDBOX_ENABLED: '1',
    // The download scenario's file, on the local storage driver, in a directory of the run's own.
    STORAGE_DRIVER: 'local',
    STORAGE_DIR: storageDir,
  };
  delete env.RATE_LIMITS;
  const children: ChildProcess[] = [];
  const spawnNode = (args: string[], extra: NodeJS.ProcessEnv): ChildProcess => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...env, ...extra },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    return child;
  };
  let deps: Deps | null = null;
  try {
    await admin.raw(`create database "${dbName}"`);
    await migrateDatabase(env.DATABASE_URL!);
    deps = await createDeps(configWith(env, {}), {
      role: 'script',
      logger: createLogger('warn', 'bench'),
    });
    const manifest = await loadFixture(deps, await readFixtureFile(path.join(root, 'fixtures/demo.json')));
    const store = Object.values(manifest.stores)[0];
    const productId = Object.values(store.products)[0].id;
    // Store pages (docs/store-pages.md) are read on a store of 500 products in two languages.
    await loadFixture(deps, benchCatalogue(500));
    const flashManifest = await loadFixture(deps, flashStore(flashKeys));
    const flash = Object.values(flashManifest.stores)[0];
    const flashProductId = Object.values(flash.products)[0].id;
    // Checkouts need a product without required custom fields, given unlimited stock for the run.
    const plain = await Product.query(deps.knex)
      .where({ store_id: store.id, active: true, type: 'product' })
      .whereRaw("not exists (select 1 from jsonb_array_elements(fields) f where (f->>'required')::boolean)")
      .orderBy('id')
      .first();
    if (!plain) throw new Error('bench: the demo store has no product a guest can check out');
    // No download limit either: the download scenario fetches one buyer's file thousands of times.
    await deps.knex('products').where({ id: plain.id }).update({ stock: null, download_limit: 0 });
    const customer = await Customer.query(deps.knex).findById(Object.values(store.customers)[0].id);
    const embedToken = (await issueCustomerToken(customer!, 'embed', deps.knex)).token;
    const demoLicense = Object.values(store.licenses)[0];
    const licenseProductId = demoLicense
      ? ((await deps.knex('licenses').where({ id: demoLicense.id }).first('product_id'))
          ?.product_id as number)
      : null;

    // The Procfile's processes run compiled: dist/ built from the sources being measured (skipped when the
    // build stamp says it already is, as `npm start` does).
    if (!buildIsCurrent(root)) {
      const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'run.mjs'), 'prepare'], {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      if (build.status !== 0 || !buildIsCurrent(root))
        throw new Error('bench: the build failed (npm run build shows why)');
    }

    // The processes run the Procfile's commands (node's own flags included), with this node binary.
    const entries = readProcfile(path.join(root, 'Procfile'));
    const procfile = (name: string): string[] => {
      const argv = entries.get(name);
      if (!argv || argv[0] !== 'node')
        throw new Error(`bench: the Procfile's ${name} entry is not a node command`);
      return argv.slice(1);
    };
    // BENCH_PROFILE=<dir>: each web process writes a CPU profile there when it exits (node --cpu-prof).
    const profileDir = process.env.BENCH_PROFILE ? path.resolve(process.env.BENCH_PROFILE) : null;
    const profile = (name: string): string[] =>
      profileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=web-${name}.cpuprofile`]
        : [];

    const ports = { bare: await freePort(3990) } as Record<Target, number>;
    ports.koa = await freePort(ports.bare + 1);
    ports.limited = await freePort(ports.koa + 1);
    ports.unlimited = await freePort(ports.limited + 1);
    const bases = Object.fromEntries(
      Object.entries(ports).map(([k, port]) => [k, `http://127.0.0.1:${port}`]),
    ) as Record<Target, string>;
    spawnNode(['-e', BARE_SERVER], { PORT: String(ports.bare) });
    spawnNode(['-e', BARE_KOA_SERVER], { PORT: String(ports.koa) });
    const web = {
      limited: spawnNode([...profile('limited'), ...procfile('web')], {
        PORT: String(ports.limited),
        PUBLIC_BASE_URL: bases.limited,
      }),
      unlimited: spawnNode([...profile('unlimited'), ...procfile('web')], {
        PORT: String(ports.unlimited),
        PUBLIC_BASE_URL: bases.unlimited,
        RATE_LIMITS: 'off',
      }),
    };
    spawnNode(procfile('worker'), { WORKER_QUEUES: 'otp,messages' });
    // The flash sale's payments: provider sessions, reconciliation, fulfilment (keys), their e-mails.
    spawnNode(procfile('worker'), { WORKER_QUEUES: 'payments,fulfilment,emails,licenses' });
    /** Runs `count` more web processes (limits on) for one measure, and stops them after it. */
    const onWebProcesses = async <T>(count: number, measure: (base: string) => Promise<T>): Promise<T[]> => {
      const started: { child: ChildProcess; base: string }[] = [];
      let port = ports.unlimited;
      try {
        for (let i = 0; i < count; i++) {
          port = await freePort(port + 1);
          const base = `http://127.0.0.1:${port}`;
          started.push({
            child: spawnNode(procfile('web'), { PORT: String(port), PUBLIC_BASE_URL: base }),
            base,
          });
        }
        await Promise.all(started.map(({ base }) => waitForHealth(base)));
        return await Promise.all(started.map(({ base }) => measure(base)));
      } finally {
        await Promise.all(started.map(({ child }) => stop(child)));
      }
    };
    await Promise.all(Object.values(bases).map((base) => waitForHealth(base)));

    const embed = { 'x-embed-key': store.embed_key };
    const guestBody = (n: number) =>
      JSON.stringify({
        product_id: plain.id,
        quantity: 1,
        customer_first_name: 'Bench',
        customer_last_name: 'Mark',
        customer_email: `bench${n}@example.com`,
        customer_phone: `55${String(1_000_000 + n).padStart(7, '0')}`,
        customer_country_code: '966',
      });
    const guest = await postJson(
      bases.unlimited,
      '/api/embed/guest/checkout',
      JSON.parse(guestBody(0)),
      embed,
    );
    const checkoutUrl = (guest.body.data as { checkout_url?: string } | undefined)?.checkout_url;
    if (!checkoutUrl) throw new Error(`bench: guest checkout failed (${guest.status})`);
    const verifyBody = demoLicense
      ? JSON.stringify({
          product_id: licenseProductId,
          license_key: demoLicense.key,
          hwid: 'BENCH-MACHINE-1',
        })
      : null;
    // The hwid is activated once here; the scenario measures a machine that checks again and again.
    if (verifyBody) await postJson(bases.unlimited, '/verify', JSON.parse(verifyBody));

    // The Merchant reads are measured on a store with BENCH_ORDERS orders (100,000; 2,000 when quick).
    await seedOrders(deps, store.id, plain.id, orderCount);
    const merchant = {
      authorization: `Bearer ${(await createMerchantToken(deps.knex, store.id, 'bench', 'read')).token}`,
    };
    // The dashboard pages are read signed in as the demo store's owner, a session made as sign-in makes it.
    const owner = await deps
      .knex('store_members')
      .where({ store_id: store.id, role: 'owner' })
      .orderBy('id')
      .first('merchant_user_id');
    if (!owner) throw new Error('bench: the demo store has no owner to sign in to the dashboard as');
    const dashboard = {
      cookie: `${SESSION_COOKIE}=${await createSession(deps.knex, owner.merchant_user_id as number, store.id, 'bench')}`,
    };
    const newestOrder = (await deps.knex('orders').where({ store_id: store.id }).max('id as id').first())
      ?.id as number;

    // The buyer's account (docs/account.md): a buyer with 20 paid orders, signed in as sign-in signs in.
    const accountPhone = '599999999';
    await deps
      .knex('orders')
      .whereIn(
        'id',
        deps
          .knex('orders')
          .where({ store_id: store.id, status: 4 })
          .orderBy('id', 'desc')
          .limit(20)
          .select('id'),
      )
      .update({ customer_phone: accountPhone });
    const account = {
      cookie: `${ACCOUNT_COOKIE}=${await createBuyerSession(deps.knex, { kind: 'phone', value: `966${accountPhone}` }, 'bench')}`,
    };
    // A download (docs/downloads.md): a 64 KB file uploaded through the Merchant API (local storage
    // driver), fetched by the buyer of a completed order of its product.
    const writer = (await createMerchantToken(deps.knex, store.id, 'bench-files', 'write')).token;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(crypto.randomBytes(64 * 1024))]), 'manual.pdf');
    const uploaded = await fetch(`${bases.unlimited}/shawarma/products/${plain.id}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}` },
      body: form,
    });
    const fileId = ((await uploaded.json()) as { data?: { id?: number } }).data?.id;
    if (!uploaded.ok || !fileId) throw new Error(`bench: the file upload failed (${uploaded.status})`);
    const boughtItem = await deps
      .knex('order_items as i')
      .join('orders as o', 'o.id', 'i.order_id')
      .where({ 'o.store_id': store.id, 'o.status': 4, 'i.product_id': plain.id })
      .orderBy('i.id', 'desc')
      .first<{ id: number }>('i.id');
    const downloadPath = `/downloads/${downloadToken(deps.appSecret, boughtItem.id, fileId)}`;
    // Each page once per web process before it is measured, as a process that has served traffic has:
    // the first account page loads the modules it renders with (seconds on a busy machine).
    for (const base of [bases.limited, bases.unlimited]) {
      for (const [url, headers] of [
        ['/account?lang=en', account],
        [downloadPath, {}],
        ['/s/bench-catalogue?lang=ar', {}],
        ['/s/bench-catalogue/p/gift-card-250?lang=en', {}],
      ] as [string, Record<string, string>][]) {
        const warm = await fetch(base + url, { headers });
        await warm.arrayBuffer();
        if (warm.status !== 200) throw new Error(`bench: ${url} answered ${warm.status} before the run`);
      }
    }
    /** The pages a merchant opens most, by name, read in turn (BENCH_DASHBOARD_PAGES=name,name: some). */
    const pickedPages = process.env.BENCH_DASHBOARD_PAGES?.split(',');
    const dashboardPages = (
      [
        ['home', '/merchant'],
        ['orders', '/merchant/orders'],
        ['order', `/merchant/orders/${newestOrder}`],
        ['products', '/merchant/products'],
        ['product', `/merchant/products/${plain.id}`],
        ['customers', '/merchant/customers'],
        ['settings', '/merchant/settings'],
      ] as [string, string][]
    ).filter(([page]) => !pickedPages || pickedPages.includes(page));
    if (dashboardPages.length === 0) throw new Error('bench: BENCH_DASHBOARD_PAGES names no dashboard page');

    // The fixed-rate Embed scenarios run with limits on when their traffic stays within the spec's global
    // Embed limit (5,000 a minute, shared by every caller): two scenarios of `rate` a second.
    const fixedTarget: Target = rate * seconds * 2 <= 4_500 ? 'limited' : 'unlimited';
    const analyticsHeaders = { host: 'demo.localhost', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' };
    const scenarios: Scenario[] = [
      {
        name: 'bare node:http',
        what: 'the same JSON as /healthz from `node:http` alone',
        target: 'bare',
        request: { method: 'GET', path: '/healthz' },
        expect: [200],
      },
      {
        name: 'bare koa',
        what: 'the same JSON from Koa and `@koa/router` alone',
        target: 'koa',
        request: { method: 'GET', path: '/healthz' },
        expect: [200],
      },
      {
        name: 'healthz',
        what: '`GET /healthz`: Koa and the shared middleware, no I/O',
        target: 'limited',
        request: { method: 'GET', path: '/healthz' },
        expect: [200],
        goal: { shareOfKoa: 0.9 },
      },
      {
        name: 'payment/status',
        what: '`GET /api/embed/payment/status/{checkoutUrl}` (polling)',
        target: 'limited',
        request: { method: 'GET', path: `/api/embed/payment/status/${checkoutUrl}` },
        vary: fromClient,
        expect: [200],
        goal: { shareOfKoa: 0.5 },
      },
      ...(verifyBody
        ? [
            {
              name: 'license/verify',
              what: '`POST /verify`, hwid already activated (signed answer)',
              target: 'limited' as const,
              request: { method: 'POST' as const, path: '/verify', body: verifyBody },
              vary: fromClient,
              expect: [200],
              goal: { shareOfKoa: 0.4 },
            },
            {
              name: 'license/certificate',
              what: '`POST /verify/certificate`, same machine (verify + Ed25519 JWS, signed answer)',
              target: 'limited' as const,
              request: { method: 'POST' as const, path: '/verify/certificate', body: verifyBody },
              vary: fromClient,
              expect: [200],
            },
          ]
        : []),
      {
        name: 'embed product',
        what: '`GET /api/embed/product/{id}` (embed key, catalogue)',
        target: 'unlimited',
        request: { method: 'GET', path: `/api/embed/product/${productId}`, headers: embed },
        expect: [200],
        goal: { shareOfKoa: 0.5 },
      },
      {
        name: 'auth/validate',
        what: '`POST /api/embed/auth/validate` (token lookup)',
        target: 'unlimited',
        request: {
          method: 'POST',
          path: '/api/embed/auth/validate',
          headers: { ...embed, authorization: `Bearer ${embedToken}` },
          body: JSON.stringify({ product_id: productId }),
        },
        expect: [200],
      },
      {
        name: 'analytics/collect',
        what: '`POST /api/storefront/analytics/collect` (one event, queued)',
        target: 'limited',
        request: {
          method: 'POST',
          path: '/api/storefront/analytics/collect',
          headers: analyticsHeaders,
          body: singleBody(),
        },
        vary: fromClient,
        expect: [202],
        goal: { shareOfKoa: 0.5 },
      },
      {
        name: 'analytics/collect/batch',
        what: '`POST .../collect/batch` (30 events, queued)',
        target: 'limited',
        request: {
          method: 'POST',
          path: '/api/storefront/analytics/collect/batch',
          headers: analyticsHeaders,
          body: batchBody(),
        },
        vary: fromClient,
        expect: [202],
        goal: { shareOfKoa: 0.25 },
      },
      {
        name: 'guest checkout',
        what: `\`POST /api/embed/guest/checkout\` at ${rate} req/s (reserve, insert)`,
        target: fixedTarget,
        rate,
        request: { method: 'POST', path: '/api/embed/guest/checkout', headers: embed },
        vary: (n, request) => fromClient(n + 1, { ...request, body: guestBody(n + 1) }),
        expect: [200, 201],
        goal: { p99Below: 50 },
      },
      {
        name: 'auth/start',
        what: `\`POST /api/embed/auth/start\` at ${rate} req/s (insert, enqueue the OTP)`,
        target: fixedTarget,
        rate,
        request: { method: 'POST', path: '/api/embed/auth/start', headers: embed },
        vary: (n, request) =>
          fromClient(n + 100_000, {
            ...request,
            body: JSON.stringify({
              product_id: productId,
              country_code: '966',
              phone: `56${String(1_000_000 + n).padStart(7, '0')}`,
            }),
          }),
        expect: [200],
        goal: { p99Below: 30 },
      },
      ...storePageScenarios(pageRate),
      {
        name: 'store page (max)',
        what: '`GET /s/{slug}` (500 products, Arabic) as fast as the connections go',
        target: 'limited',
        request: { method: 'GET', path: '/s/bench-catalogue?lang=ar' },
        vary: fromClient,
        expect: [200],
        goal: { shareOfKoa: 0.5 },
      },
      {
        name: 'product page (max)',
        what: '`GET /s/{slug}/p/{product}` (English) as fast as the connections go',
        target: 'limited',
        request: { method: 'GET', path: '/s/bench-catalogue/p/gift-card-250?lang=en' },
        vary: fromClient,
        expect: [200],
        goal: { shareOfKoa: 0.5 },
      },
      {
        name: 'account orders',
        what: "`GET /account` signed in: a buyer's 20 paid orders, keys and files",
        target: 'limited',
        request: { method: 'GET', path: '/account?lang=en', headers: account },
        vary: fromClient,
        expect: [200],
      },
      {
        name: 'download',
        what: '`GET /downloads/{token}`: a 64 KB file, local storage driver (each one counted)',
        target: 'limited',
        request: { method: 'GET', path: downloadPath },
        vary: fromClient,
        expect: [200],
      },
      {
        name: 'merchant statistics',
        what: `\`GET /shawarma/store/statics\` on ${orderCount.toLocaleString('en')} orders at ${merchantRate} req/s`,
        target: 'unlimited',
        rate: merchantRate,
        request: { method: 'GET', path: '/shawarma/store/statics', headers: merchant },
        expect: [200],
        goal: { p99Below: 100 },
      },
      {
        name: 'merchant orders',
        what: `\`GET /shawarma/orders\` (a page of 50, newest first) at ${merchantRate} req/s`,
        target: 'unlimited',
        rate: merchantRate,
        request: { method: 'GET', path: '/shawarma/orders?per_page=50', headers: merchant },
        expect: [200],
        goal: { p99Below: 100 },
      },
      {
        name: 'dashboard pages',
        what:
          `\`GET /merchant/...\` signed in, in turn: ${dashboardPages.map(([page]) => page).join(', ')}, ` +
          `at ${dashboardRate} req/s (target on Server-Timing \`app\`)`,
        target: 'limited',
        rate: dashboardRate,
        request: { method: 'GET', path: '/merchant', headers: dashboard },
        vary: (n, request) => ({ ...request, path: dashboardPages[n % dashboardPages.length][1] }),
        serverTiming: (at) => dashboardPages.find(([, page]) => page === at)?.[0] ?? at,
        expect: [200],
        goal: { serverP99Below: 50 },
      },
    ];

    // Ingest first, on an empty queue and table: the HTTP scenarios after it leave analytics jobs behind.
    const ingest = await measureIngest({
      base: bases.unlimited,
      host: 'demo.localhost',
      env: { ...env, PUBLIC_BASE_URL: bases.unlimited },
      cwd: root,
      databaseUrl: env.DATABASE_URL!,
      events: ingestEvents,
      queue: deps.queues.analytics,
      say,
    });
    // The same ingest with two analytics workers on the queue (the scale curve's second point).
    const ingestTwo = scale
      ? await measureIngest({
          base: bases.unlimited,
          host: 'demo.localhost',
          env: { ...env, PUBLIC_BASE_URL: bases.unlimited },
          cwd: root,
          databaseUrl: env.DATABASE_URL!,
          events: ingestEvents,
          queue: deps.queues.analytics,
          say,
          workers: 2,
        })
      : null;

    say(
      `bench: ${seconds} s per scenario, ${connections} connections` +
        `${quick ? ' (BENCH_QUICK: a correctness run, not a measurement)' : ''}`,
    );
    const results: Result[] = [];
    let otpSince = new Date();
    // BENCH_ONLY=name,name runs those scenarios (and the two ceilings) only.
    const only = process.env.BENCH_ONLY?.split(',');
    const chosen = scenarios.filter(
      (s) => !only || ['bare node:http', 'bare koa', 'healthz'].includes(s.name) || only.includes(s.name),
    );
    for (const scenario of chosen) {
      if (scenario.name === 'auth/start') {
        otpSince = (await deps.knex.raw('select now() as now')).rows[0].now as Date;
      }
      const result = await runScenario(bases, scenario, seconds, connections);
      say(
        `bench: ${scenario.name}: ${result.rps.toFixed(0)} req/s, ${result.wrong} wrong of ${result.total}`,
      );
      results.push(result);
    }
    // The flash sale (docs/performance.md, "Flash sale"), open loop, on the web process without limits.
    let flashSale: FlashSaleResult | null = null;
    if (!only || only.includes('flash sale')) {
      say(`bench: flash sale: ${flashKeys} keys, ${flashBuyers} buyers over ${flashSeconds} s`);
      flashSale = await runFlashSale({
        base: bases.unlimited,
        knex: deps.knex,
        embedKey: flash.embed_key,
        productId: flashProductId,
        keys: flashKeys,
        buyers: flashBuyers,
        seconds: flashSeconds,
        phonePrefix: '97',
      });
      say(`bench: flash sale: ${flashSale.paidOrders} paid, ${flashSale.soldOutBuyers} told sold out`);
    }
    // What one checkout asks of Postgres, and what Postgres alone can do with its writes.
    let statements: CheckoutStatements | null = null;
    let ceiling: Awaited<ReturnType<typeof rawCheckoutCeiling>> | null = null;
    if (!only || only.includes('checkout statements')) {
      statements = await checkoutStatements(deps, guestBody, store.embed_key, quick ? 10 : 50);
      ceiling = await rawCheckoutCeiling({
        databaseUrl: env.DATABASE_URL!,
        knex: deps.knex,
        statements: statements.last,
        seconds: quick ? 1 : seconds,
        connections: 8,
      });
    }
    const authStart = results.find((r) => r.scenario.name === 'auth/start');
    const sentOtps = authStart ? authStart.total - authStart.wrong : 0;
    const delivered = authStart ? await otpDeliveryTimes(deps, otpSince, sentOtps) : [];
    const rss = { limited: peakRssMb(web.limited.pid), unlimited: peakRssMb(web.unlimited.pid) };

    const bare = results[0].rps;
    const koa = results[1].rps;
    const pct = (value: number, of: number) => `${((value / of) * 100).toFixed(1)}%`;
    const verdict = (met: boolean) => (met ? 'met' : 'missed');
    const goalOf = (r: Result): string => {
      const goal = r.scenario.goal;
      if (!goal) return '-';
      if ('shareOfKoa' in goal) {
        return `>= ${goal.shareOfKoa * 100}% of Koa: ${verdict(r.rps >= goal.shareOfKoa * koa)}`;
      }
      if ('p99Below' in goal) return `p99 < ${goal.p99Below} ms: ${verdict(r.p99 < goal.p99Below)}`;
      const server = r.server?.p99 ?? NaN;
      return `server p99 < ${goal.serverP99Below} ms: ${verdict(server < goal.serverP99Below)}`;
    };
    say('');
    say(
      '| scenario | what it exercises | limits | req/s | % of bare | % of bare Koa | p50 ms | p99 ms | wrong answers | target |',
    );
    say('|---|---|---|---:|---:|---:|---:|---:|---:|---|');
    for (const r of results) {
      const limits = ['bare', 'koa'].includes(r.scenario.target)
        ? '-'
        : r.scenario.target === 'limited'
          ? 'on'
          : 'off';
      say(
        `| ${r.scenario.name} | ${r.scenario.what} | ${limits} | ${r.rps.toFixed(0)} | ${pct(r.rps, bare)} | ` +
          `${pct(r.rps, koa)} | ${r.p50} | ${r.p99} | ${r.wrong} of ${r.total} | ${goalOf(r)} |`,
      );
    }
    say('');
    say('| measure | figure | target |');
    say('|---|---:|---|');
    if (authStart) {
      const p99 = percentile(delivered, 99);
      say(
        `| auth/start: OTP handed to the outbox driver, min / p50 / p99 (${delivered.length} messages) | ` +
          `${percentile(delivered, 0).toFixed(0)} / ${percentile(delivered, 50).toFixed(0)} / ${p99.toFixed(0)} ms | ` +
          `p99 < 150 ms: ${verdict(p99 < 150)} |`,
      );
    }
    say(
      `| analytics ingest (API -> queue -> batched INSERT), ${ingest.events} events | ` +
        `${ingest.ingestPerSecond.toFixed(0)} events/s (${pct(ingest.ingestPerSecond, ingest.copyPerSecond)} of COPY) | ` +
        `>= 50% of COPY: ${verdict(ingest.ingestPerSecond >= 0.5 * ingest.copyPerSecond)} |`,
    );
    say(`| raw \`COPY\` of the same rows | ${ingest.copyPerSecond.toFixed(0)} rows/s | - |`);
    const dashboardRun = results.find((r) => r.scenario.name === 'dashboard pages');
    const dashboardGoal = dashboardRun?.scenario.goal;
    if (dashboardRun?.server && dashboardGoal && 'serverP99Below' in dashboardGoal) {
      const { p50, p99, byPage } = dashboardRun.server;
      const answers = byPage.reduce((sum, page) => sum + page.answers, 0);
      const ceiling = dashboardGoal.serverP99Below;
      say(
        `| dashboard pages' server time (Server-Timing \`app\`), p50 / p99 (${answers} pages) | ` +
          `${p50.toFixed(1)} / ${p99.toFixed(1)} ms | p99 < ${ceiling} ms: ${verdict(p99 < ceiling)} |`,
      );
      for (const page of byPage) {
        say(
          `| dashboard page ${page.page}: server time p50 / p99 (${page.answers} pages) | ` +
            `${page.p50.toFixed(1)} / ${page.p99.toFixed(1)} ms | - |`,
        );
      }
    }
    for (const r of results.filter(
      (x) => x.server && ['store page', 'product page'].includes(x.scenario.name),
    )) {
      say(
        `| ${r.scenario.name}: server time (Server-Timing \`app\`), p50 / p99 (${r.server!.byPage[0]?.answers ?? 0} pages) | ` +
          `${r.server!.p50.toFixed(1)} / ${r.server!.p99.toFixed(1)} ms | p99 < 20 ms: ${verdict(r.server!.p99 < 20)} |`,
      );
    }
    const checkoutRun = results.find((r) => r.scenario.name === 'guest checkout');
    if (ceiling && statements) {
      say(
        `| checkout statements: per guest checkout (BEGIN/COMMIT included), Postgres time / whole HTTP p50 | ` +
          `${statements.perCheckout.toFixed(1)} statements, ${statements.dbMsPerCheckout.toFixed(1)} / ` +
          `${statements.httpMsP50.toFixed(1)} ms | - |`,
      );
      say(
        `| raw ceiling: a checkout's ${ceiling.writes} writes in one transaction through \`pg\`, 8 connections | ` +
          `${ceiling.perSecond.toFixed(0)} checkouts/s${ceiling.failed ? ` (replay failed: ${ceiling.failed})` : ''} | - |`,
      );
      if (checkoutRun) {
        say(
          `| guest checkout at ${rate}/s as a share of the raw ceiling | ` +
            `${pct(checkoutRun.rps, ceiling.perSecond)} (p99 ${checkoutRun.p99} ms) | ` +
            `${rate}/s with p99 < 100 ms: ${verdict(checkoutRun.rps >= rate * 0.95 && checkoutRun.p99 < 100)} |`,
        );
      }
    }
    if (flashSale) {
      const f = flashSale;
      const faults = flashSaleFaults(f);
      say(
        `| flash sale: ${f.keys} keys, ${f.buyers} buyers over ${f.seconds} s (open loop, limits off) | ` +
          `${f.paidOrders} paid, ${f.keysSold} keys sold (${f.keysSoldTwice} twice), ${f.soldOutBuyers} told sold out ` +
          `(${f.soldOutAtInitiate} at initiate), ${f.serverErrors} 5xx | ` +
          `exactly ${f.keys} paid, none twice, no 5xx: ${verdict(faults.length === 0)} |`,
      );
      say(
        `| flash sale: checkouts answered per second, sustained | ${f.checkoutsPerSecond.toFixed(0)}/s | - |`,
      );
      for (const step of FLASH_STEPS) {
        const ms = f.steps[step];
        say(
          `| flash sale step ${step}: p50 / p99 (${ms.length} buyers) | ` +
            `${percentile(ms, 50).toFixed(0)} / ${percentile(ms, 99).toFixed(0)} ms | - |`,
        );
      }
      say(
        `| flash sale: first payment to the ${f.keys}th delivery | ${(f.firstPaymentToLastDeliveryMs / 1000).toFixed(1)} s | - |`,
      );
    }
    const peak = Math.max(rss.limited ?? Infinity, rss.unlimited ?? Infinity);
    say(
      `| web process peak RSS, limits on / off | ${rss.limited ?? '?'} MB / ${rss.unlimited ?? '?'} MB | ` +
        `< 200 MB: ${verdict(peak < 200)} |`,
    );

    // Scale curves: the same scenario on 1, 2 and 4 web processes (limits on), each process loaded by its
    // own share of the connections at once; the figure is their sum.
    const curves: Result[] = [];
    if (scale) {
      const WEB_COUNTS = webCounts(quick);
      say('');
      say(`| scale curve (req/s, limits on) | ${WEB_COUNTS.map((n) => `${n} web`).join(' | ')} |`);
      say(`|---|${WEB_COUNTS.map(() => '---:').join('|')}|`);
      for (const name of ['payment/status', 'license/verify']) {
        const scenario = scenarios.find((s) => s.name === name);
        if (!scenario) continue;
        const figures: string[] = [];
        for (const count of WEB_COUNTS) {
          const runs = await onWebProcesses(count, (base) =>
            runScenario(
              { ...bases, limited: base },
              scenario,
              seconds,
              Math.max(1, Math.floor(connections / count)),
            ),
          );
          curves.push(...runs);
          figures.push(runs.reduce((sum, r) => sum + r.rps, 0).toFixed(0));
        }
        say(`| ${name} | ${figures.join(' | ')} |`);
      }
      if (ingestTwo) {
        say(
          `| analytics ingest, 1 / 2 workers (events/s) | ` +
            [ingest.ingestPerSecond, ingestTwo.ingestPerSecond, ...WEB_COUNTS.slice(2).map(() => NaN)]
              .map((v) => (Number.isNaN(v) ? '-' : v.toFixed(0)))
              .join(' | ') +
            ' |',
        );
      }
    }

    if (statements) {
      say('');
      say('| statement of a guest checkout | calls per checkout | ms per checkout |');
      say('|---|---:|---:|');
      for (const st of statements.statements.slice(0, 15)) {
        say(
          `| \`${st.sql.slice(0, 140).replace(/\|/g, '\\|')}\` | ${(st.count / statements.checkouts).toFixed(1)} | ` +
            `${(st.totalMs / statements.checkouts).toFixed(2)} |`,
        );
      }
      if (process.env.BENCH_PLANS === '1') {
        for (const plan of statements.plans) say(`\nplan of ${plan.sql.slice(0, 200)}\n${plan.plan}`);
      }
    }

    const wrong = [...results, ...curves].filter((r) => r.wrong > 0 || r.total === 0);
    const flashFaults = flashSale ? flashSaleFaults(flashSale) : [];
    for (const fault of flashFaults) say(`bench: flash sale: ${fault}`);
    const undelivered = Math.max(0, sentOtps - delivered.length);
    if (undelivered > 0) say(`bench: ${undelivered} OTP messages never reached the outbox`);
    for (const r of wrong) {
      say(
        `bench: ${r.scenario.name}: ${r.wrong} of ${r.total} answers were wrong (${JSON.stringify(r.wrongBy)})`,
      );
    }
    return wrong.length > 0 || undelivered > 0 || flashFaults.length > 0 ? 1 : 0;
  } finally {
    await Promise.all(children.map((child) => stop(child)));
    await deps?.close();
    rmSync(storageDir, { recursive: true, force: true });
    await admin.raw(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
    await deleteKeys(services.redisUrl, `bench_${runId}`).catch(() => undefined);
    await admin.destroy();
    await services.stop();
  }
}

// `npx tsx scripts/bench.ts` runs it too (`npm run bench` goes through scripts/run.mjs).
if (require.main === module) {
  main().then(
    (code) => process.stdout.write('', () => process.exit(code)),
    (err: Error) => {
      process.stderr.write(`bench: failed: ${err.stack ?? err.message}\n`);
      process.exit(2);
    },
  );
}
