import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import pg from 'pg';
import { createApp } from '../api/app';
import type { Deps } from '../shared/deps';
import { paidOrdersOf, waitForDeliveries } from './lib/deliveries';

/**
 * The checkout half of `npm run bench` (docs/performance.md):
 *
 * - `runFlashSale`: a flash sale, open loop. Buyers arrive evenly over the run (buyer i is due at
 *   start + i / rate, whether or not earlier ones are done, and each step's latency counts from when it
 *   was sent, the first from when the buyer was due). Each buyer does what a real one does: guest
 *   checkout, payment/initiate (sandbox card), the platform's payment page until the sandbox's Pay is on
 *   it, Pay (the sandbox's form, whose signed webhook the platform reconciles), then the status poll every
 *   500 ms until it says paid. Correctness is counted from the database afterwards.
 * - `checkoutStatements`: the statements one guest checkout sends to Postgres, counted and timed with
 *   knex's query events on an in-process web app (the server has no pg_stat_statements preloaded:
 *   `shared_preload_libraries` is empty, and the bench does not restart a shared server), with the plans
 *   (EXPLAIN ANALYZE, rolled back) of the slowest.
 * - `rawCheckoutCeiling`: the writes of one checkout replayed in one transaction through `pg` (no HTTP,
 *   no Koa, no knex), from several connections at once: what Postgres on this machine can do, the
 *   ceiling the HTTP checkout is a share of.
 */

/** Percentile (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))];
}

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

function send(
  agent: http.Agent,
  base: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        timeout: 30_000,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': Buffer.byteLength(body) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const FLASH_STEPS = ['checkout', 'initiate', 'payment page', 'pay', 'paid (status poll)'] as const;
export type FlashStep = (typeof FLASH_STEPS)[number];

export interface FlashSaleResult {
  keys: number;
  buyers: number;
  seconds: number;
  /** Checkout answers a second, from the first buyer due to the last checkout answer. */
  checkoutsPerSecond: number;
  /** Milliseconds of each step (see FLASH_STEPS), of the buyers that reached it. */
  steps: Record<FlashStep, number[]>;
  paidBuyers: number;
  soldOutBuyers: number;
  /** Buyers refused at initiate as out of stock (the checkout's own answer came before the keys ran out). */
  soldOutAtInitiate: number;
  /** Answers of 500 or more, and buyers that ended any other way (status, a timeout): each is a failure. */
  serverErrors: number;
  otherEndings: Record<string, number>;
  /** From the database, afterwards. */
  paidOrders: number;
  keysSold: number;
  keysSoldTwice: number;
  completedOrders: number;
  /** From the first payment marked paid to the last (keys-th) order completed (its keys delivered). */
  firstPaymentToLastDeliveryMs: number;
  /** Refused buyers whose first refusal was not "out of stock". */
  refusedOtherwise: number;
}

/**
 * A flash sale of `keys` keys of one code product to `buyers` buyers arriving evenly over `seconds`
 * (see the module's comment). `base` is a web process without rate limits (the sale's traffic is above
 * the spec's global Embed limit); each buyer comes from its own address and phone.
 */
export async function runFlashSale(opts: {
  base: string;
  knex: Knex;
  embedKey: string;
  productId: number;
  keys: number;
  buyers: number;
  seconds: number;
  /** Phones 5<prefix><n>: distinct from every other scenario's. */
  phonePrefix: string;
}): Promise<FlashSaleResult> {
  const base = new URL(opts.base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const steps = Object.fromEntries(FLASH_STEPS.map((s) => [s, [] as number[]])) as Record<
    FlashStep,
    number[]
  >;
  const otherEndings: Record<string, number> = {};
  let serverErrors = 0;
  let paidBuyers = 0;
  let soldOutBuyers = 0;
  let soldOutAtInitiate = 0;
  let refusedOtherwise = 0;
  let lastCheckoutAnswer = 0;
  const end = (why: string) => {
    otherEndings[why] = (otherEndings[why] ?? 0) + 1;
  };
  const note = (a: Answer): Answer => {
    if (a.status >= 500) serverErrors += 1;
    return a;
  };
  const embedHeaders = (n: number): Record<string, string> => ({
    'content-type': 'application/json',
    'x-embed-key': opts.embedKey,
    'x-forwarded-for': `10.${200 + ((n >> 16) & 31)}.${(n >> 8) & 255}.${n & 255}`,
  });
  const outOfStock = (a: Answer): boolean => {
    if (a.status !== 400) return false;
    try {
      return (JSON.parse(a.body) as { error_code?: string }).error_code === 'out_of_stock';
    } catch {
      return false;
    }
  };

  const buyer = async (n: number, due: number): Promise<void> => {
    const headers = embedHeaders(n);
    const phone = `5${opts.phonePrefix}${String(n).padStart(8 - opts.phonePrefix.length, '0')}`;
    const checkout = note(
      await send(
        agent,
        base,
        'POST',
        '/api/embed/guest/checkout',
        headers,
        JSON.stringify({
          product_id: opts.productId,
          quantity: 1,
          customer_first_name: 'Flash',
          customer_last_name: 'Buyer',
          customer_email: `flash${n}@example.com`,
          customer_phone: phone,
          customer_country_code: '966',
        }),
      ),
    );
    const checkedOut = performance.now();
    lastCheckoutAnswer = Math.max(lastCheckoutAnswer, checkedOut);
    steps.checkout.push(checkedOut - due);
    if (outOfStock(checkout)) {
      soldOutBuyers += 1;
      return;
    }
    if (checkout.status !== 200) {
      refusedOtherwise += 1;
      return end(`checkout ${checkout.status}`);
    }
    const checkoutUrl = (JSON.parse(checkout.body) as { data: { checkout_url: string } }).data.checkout_url;

    let t = performance.now();
    const initiated = note(
      await send(
        agent,
        base,
        'POST',
        '/api/embed/guest/payment/initiate',
        headers,
        JSON.stringify({ checkout_url: checkoutUrl, payment_method: 'card' }),
      ),
    );
    steps.initiate.push(performance.now() - t);
    if (outOfStock(initiated)) {
      soldOutBuyers += 1;
      soldOutAtInitiate += 1;
      return;
    }
    if (initiated.status !== 200) {
      refusedOtherwise += 1;
      return end(`initiate ${initiated.status}`);
    }
    const redirect = new URL(
      (JSON.parse(initiated.body) as { data: { redirect_url: string } }).data.redirect_url,
    );

    // The platform's payment page, until the provider session is open and the sandbox's Pay is on it.
    t = performance.now();
    const pageHeaders = { 'x-forwarded-for': headers['x-forwarded-for'], accept: 'text/html' };
    let action: string | null = null;
    for (let tries = 0; tries < 300 && !action; tries += 1) {
      const page = note(await send(agent, base, 'GET', redirect.pathname + redirect.search, pageHeaders));
      if (page.status >= 500) return end(`payment page ${page.status}`);
      if (page.status === 200 && page.body.includes('name="outcome" value="paid"')) {
        action =
          /<form method="post" action="([^"]+)"><input type="hidden" name="outcome" value="paid">/
            .exec(page.body)?.[1]
            ?.replace(/&amp;/g, '&') ?? null;
        if (!action) return end('payment page without its form');
        break;
      }
      await sleep(100);
    }
    if (!action) return end('payment page never showed Pay');
    steps['payment page'].push(performance.now() - t);

    t = performance.now();
    const actionUrl = new URL(action, base);
    const paid = note(
      await send(
        agent,
        base,
        'POST',
        actionUrl.pathname + actionUrl.search,
        { ...pageHeaders, 'content-type': 'application/x-www-form-urlencoded', origin: base.origin },
        'outcome=paid',
      ),
    );
    steps.pay.push(performance.now() - t);
    // The page's own form answers 200 (the page, confirming); the sandbox's address answers 303.
    if (paid.status !== 200 && paid.status !== 303) return end(`pay ${paid.status}`);

    t = performance.now();
    for (let tries = 0; tries < 120; tries += 1) {
      const status = note(
        await send(
          agent,
          base,
          'GET',
          `/api/embed/payment/status/${encodeURIComponent(checkoutUrl)}`,
          headers,
        ),
      );
      if (status.status === 200 && (JSON.parse(status.body) as { data: { is_paid: boolean } }).data.is_paid) {
        steps['paid (status poll)'].push(performance.now() - t);
        paidBuyers += 1;
        return;
      }
      if (status.status !== 200) return end(`status ${status.status}`);
      await sleep(500);
    }
    end('status never said paid');
  };

  const started = performance.now();
  const rate = opts.buyers / opts.seconds;
  const running: Promise<void>[] = [];
  for (let i = 0; i < opts.buyers; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    running.push(
      buyer(i + 1, due).catch((err: Error) => {
        end(`error: ${err.message}`);
      }),
    );
  }
  await Promise.all(running);
  agent.destroy();

  const { knex } = opts;
  await waitForDeliveries(knex, opts.productId);
  const orders = await paidOrdersOf(knex, opts.productId).select<
    { status: number; completed_at: Date | null; paid_at: Date }[]
  >('o.status', 'o.completed_at', 'p.paid_at');
  const codes = await knex('product_codes')
    .where('product_id', opts.productId)
    .where('status', 'sold')
    .select<{ order_item_id: number }[]>('order_item_id');
  const perItem = new Map<number, number>();
  for (const c of codes) perItem.set(c.order_item_id, (perItem.get(c.order_item_id) ?? 0) + 1);
  const completed = orders.filter((o) => o.completed_at !== null);
  const firstPaid = Math.min(...orders.map((o) => new Date(o.paid_at).getTime()));
  const lastDelivered = Math.max(...completed.map((o) => new Date(o.completed_at!).getTime()));
  return {
    keys: opts.keys,
    buyers: opts.buyers,
    seconds: opts.seconds,
    checkoutsPerSecond: steps.checkout.length / ((lastCheckoutAnswer - started) / 1000),
    steps,
    paidBuyers,
    soldOutBuyers,
    soldOutAtInitiate,
    serverErrors,
    otherEndings,
    paidOrders: orders.length,
    keysSold: codes.length,
    keysSoldTwice: [...perItem.values()].filter((n) => n > 1).length,
    completedOrders: completed.length,
    firstPaymentToLastDeliveryMs: completed.length > 0 ? lastDelivered - firstPaid : NaN,
    refusedOtherwise,
  };
}

/** The faults of a flash sale, as lines (none: it sold exactly its keys, once each, and told the rest). */
export function flashSaleFaults(r: FlashSaleResult): string[] {
  const faults: string[] = [];
  if (r.paidOrders !== r.keys) faults.push(`${r.paidOrders} paid orders for ${r.keys} keys`);
  if (r.keysSold !== r.keys) faults.push(`${r.keysSold} keys sold of ${r.keys}`);
  if (r.keysSoldTwice > 0) faults.push(`${r.keysSoldTwice} order items got more than one key`);
  if (r.completedOrders !== r.keys) faults.push(`${r.completedOrders} of ${r.keys} orders delivered`);
  if (r.paidBuyers !== r.keys) faults.push(`${r.paidBuyers} buyers saw their payment confirmed`);
  if (r.serverErrors > 0) faults.push(`${r.serverErrors} answers were 5xx`);
  if (r.paidBuyers + r.soldOutBuyers !== r.buyers)
    faults.push(
      `${r.buyers - r.paidBuyers - r.soldOutBuyers} buyers ended otherwise: ${JSON.stringify(r.otherEndings)}`,
    );
  return faults;
}

export interface Statement {
  sql: string;
  count: number;
  totalMs: number;
  /** The first bindings seen (for EXPLAIN). */
  bindings: readonly unknown[];
}

export interface CheckoutStatements {
  checkouts: number;
  /** Statements a checkout sends (BEGIN and COMMIT included), on average. */
  perCheckout: number;
  /** Milliseconds a checkout spends waiting for Postgres, on average (the sum of its statements' times). */
  dbMsPerCheckout: number;
  /** Milliseconds of the whole HTTP checkout, p50, measured one at a time. */
  httpMsP50: number;
  statements: Statement[];
  /** Plans of the slowest reads (EXPLAIN ANALYZE, rolled back; a replayed insert would collide on its unique token). */
  plans: { sql: string; plan: string }[];
  /** The last checkout's statements in order, as sent (for the raw ceiling's replay). */
  last: { sql: string; bindings: readonly unknown[] }[];
}

/** The SQL with literals and placeholders folded, so that one statement's calls count together. */
const shapeOf = (sql: string): string => sql.replace(/\$\d+/g, '?').replace(/\s+/g, ' ').trim();

/**
 * Counts and times the statements of `count` guest checkouts, one at a time, on an in-process web app of
 * `deps` (the same app as the web process, on knex's query events), and EXPLAINs the slowest.
 */
export async function checkoutStatements(
  deps: Deps,
  body: (n: number) => string,
  embedKey: string,
  count: number,
): Promise<CheckoutStatements> {
  const server = http.createServer(createApp(deps).callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const agent = new http.Agent({ keepAlive: true });
  const byShape = new Map<string, Statement>();
  const started = new Map<string, { at: number; shape: string }>();
  let capturing = false;
  let sequence: { sql: string; bindings: readonly unknown[] }[] = [];
  const onQuery = (q: { sql: string; bindings?: unknown[]; __knexQueryUid: string }) => {
    if (!capturing) return;
    sequence.push({ sql: q.sql, bindings: q.bindings ?? [] });
    const shape = shapeOf(q.sql);
    started.set(q.__knexQueryUid, { at: performance.now(), shape });
    const s = byShape.get(shape);
    if (s) s.count += 1;
    else byShape.set(shape, { sql: shape, count: 1, totalMs: 0, bindings: q.bindings ?? [] });
  };
  const onDone = (_r: unknown, q: { __knexQueryUid: string }) => {
    const s = started.get(q.__knexQueryUid);
    if (!s) return;
    started.delete(q.__knexQueryUid);
    byShape.get(s.shape)!.totalMs += performance.now() - s.at;
  };
  deps.knex.on('query', onQuery);
  deps.knex.on('query-response', onDone);
  deps.knex.on('query-error', onDone);
  const httpMs: number[] = [];
  try {
    // Warm: the caches a running process has (store, product, methods) filled once.
    for (let n = 0; n < 5; n += 1) {
      await send(
        agent,
        base,
        'POST',
        '/api/embed/guest/checkout',
        headersFor(embedKey, 900_000 + n),
        body(900_000 + n),
      );
    }
    capturing = true;
    for (let n = 0; n < count; n += 1) {
      const t = performance.now();
      sequence = [];
      const a = await send(
        agent,
        base,
        'POST',
        '/api/embed/guest/checkout',
        headersFor(embedKey, 910_000 + n),
        body(910_000 + n),
      );
      httpMs.push(performance.now() - t);
      if (a.status !== 200)
        throw new Error(`bench: checkout statements: a checkout answered ${a.status}: ${a.body}`);
    }
    capturing = false;
  } finally {
    deps.knex.removeListener('query', onQuery);
    deps.knex.removeListener('query-response', onDone);
    deps.knex.removeListener('query-error', onDone);
    agent.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  const statements = [...byShape.values()].sort((a, b) => b.totalMs - a.totalMs);
  const plans: { sql: string; plan: string }[] = [];
  for (const s of statements.filter((x) => /^select\b/i.test(x.sql)).slice(0, 4)) {
    let lines: string[];
    const trx = await deps.knex.transaction();
    try {
      const result = await trx.raw(`explain (analyze, costs off, summary off) ${s.sql}`, [
        ...s.bindings,
      ] as Knex.RawBinding[]);
      lines = (result as { rows: { 'QUERY PLAN': string }[] }).rows.map((r) => r['QUERY PLAN']);
    } catch (err) {
      lines = [`(no plan: ${(err as Error).message})`];
    } finally {
      await trx.rollback().catch(() => undefined);
    }
    plans.push({ sql: s.sql, plan: lines.join('\n') });
  }
  const total = statements.reduce((n, s) => n + s.count, 0);
  return {
    checkouts: count,
    perCheckout: total / count,
    dbMsPerCheckout: statements.reduce((n, s) => n + s.totalMs, 0) / count,
    httpMsP50: percentile(httpMs, 50),
    statements,
    plans,
    last: sequence,
  };
}

const headersFor = (embedKey: string, n: number): Record<string, string> => ({
  'content-type': 'application/json',
  'x-embed-key': embedKey,
  'x-forwarded-for': `10.${190 + ((n >> 16) & 7)}.${(n >> 8) & 255}.${n & 255}`,
});

/** knex's `?` placeholders as pg's `$1, $2...` (SQL already positional is left as it is). */
function positional(sql: string): string {
  if (/\$1\b/.test(sql)) return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The binding index of the `checkout_id` column of a one-row INSERT, or null. */
function checkoutColumn(sql: string): number | null {
  const columns = /^\s*insert\s+into\s+"\w+"\s*\(([^)]*)\)\s*values/i.exec(sql)?.[1];
  if (!columns) return null;
  const at = columns
    .split(',')
    .map((c) => c.trim().replace(/"/g, ''))
    .indexOf('checkout_id');
  return at >= 0 ? at : null;
}

/**
 * The raw ceiling: the writes one checkout makes (its INSERTs, UPDATEs and DELETEs as it sent them, in its
 * order, the reads left out), replayed in one transaction each through `pg` from `connections`
 * connections for `seconds`: checkouts a second that Postgres on this machine takes with no HTTP, Koa,
 * knex or reads. Each replay gets a fresh token hash (the unique `checkouts.token_hash`); the rows are
 * deleted afterwards.
 */
export async function rawCheckoutCeiling(opts: {
  databaseUrl: string;
  knex: Knex;
  statements: readonly { sql: string; bindings: readonly unknown[] }[];
  seconds: number;
  connections: number;
}): Promise<{ perSecond: number; writes: number; failed: string | null }> {
  const writes = opts.statements.filter((s) => /^\s*(insert|update|delete)\b/i.test(s.sql));
  const hex64 = /^[0-9a-f]{64}$/;
  const fresh = (bindings: readonly unknown[]) =>
    bindings.map((b) =>
      typeof b === 'string' && hex64.test(b) ? crypto.randomBytes(32).toString('hex') : b,
    );
  const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.connections });
  const checkoutIds: number[] = [];
  let done = 0;
  let failed: string | null = null;
  const deadline = performance.now() + opts.seconds * 1000;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: opts.connections }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < deadline && failed === null) {
            await client.query('begin');
            try {
              let checkoutId: number | null = null;
              for (const w of writes) {
                const bindings = fresh(w.bindings);
                // A row that names the checkout (its lines, its outbox job) names this replay's.
                const at = checkoutColumn(w.sql);
                if (at !== null && checkoutId !== null) bindings[at] = checkoutId;
                const { rows } = await client.query<{ id?: number }>(positional(w.sql), bindings);
                if (/^\s*insert\s+into\s+"checkouts"\s/i.test(w.sql) && rows[0]?.id) {
                  checkoutId = Number(rows[0].id);
                  checkoutIds.push(checkoutId);
                }
              }
              await client.query('commit');
              done += 1;
            } catch (err) {
              await client.query('rollback');
              failed = (err as Error).message;
            }
          }
        } finally {
          client.release();
        }
      }),
    );
  } finally {
    await pool.end();
  }
  const elapsed = (performance.now() - t0) / 1000;
  for (let i = 0; i < checkoutIds.length; i += 1000) {
    await opts
      .knex('job_outbox')
      .whereIn('id', [])
      .delete()
      .catch(() => undefined);
    await opts
      .knex('checkouts')
      .whereIn('id', checkoutIds.slice(i, i + 1000))
      .delete()
      .catch(() => undefined);
  }
  return { perSecond: done / elapsed, writes: writes.length, failed };
}
