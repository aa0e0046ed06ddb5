import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { testDatabaseUrl, testRedisUrl } from '../helpers/env';

const root = path.resolve(__dirname, '../..');

/** The scenarios `npm run bench` must measure, by the names its table prints. */
const SCENARIOS = [
  'bare node:http',
  'bare koa',
  'healthz',
  'payment/status',
  'license/verify',
  'license/certificate',
  'embed product',
  'auth/validate',
  'analytics/collect',
  'analytics/collect/batch',
  'guest checkout',
  'auth/start',
  'store page',
  'product page',
  'store search',
  'store page (max)',
  'product page (max)',
  'account orders',
  'download',
  'merchant statistics',
  'merchant orders',
  'dashboard pages',
];

/** The dashboard pages the bench reads in turn, by the names its per-page lines print. */
const DASHBOARD_PAGES = ['home', 'orders', 'order', 'products', 'product', 'customers', 'settings'];

/**
 * The bench, short (BENCH_QUICK=1), once per suite: it checks that every scenario ran and that every
 * answer had the status the scenario expects. Its figures are printed, never asserted: speed is the
 * bench's to measure, not the suite's. Smaller still than BENCH_QUICK alone (half a second per scenario,
 * low fixed rates, a 5-key flash sale, and no scale curves, which start four web processes and are
 * the full bench's to run): the suite runs it beside every other file on two
 * cores, where a bench at full pace starves its neighbours and its own fixed-rate scenarios alike.
 */
const SMALL: NodeJS.ProcessEnv = {
  BENCH_SCALE: '0',
  // The bench's processes inherit it: a loaded machine is not an outage (test/helpers/env.ts says the same).
  DEPENDENCY_TIMEOUT_MS: '5000',
  BENCH_SECONDS: '0.5',
  BENCH_CONNECTIONS: '4',
  BENCH_RATE: '40',
  BENCH_PAGE_RATE: '40',
  BENCH_MERCHANT_RATE: '20',
  BENCH_DASHBOARD_RATE: '14',
  BENCH_INGEST_EVENTS: '300',
  BENCH_ORDERS: '200',
  BENCH_FLASH_KEYS: '5',
  BENCH_FLASH_BUYERS: '30',
};
describe('npm run bench (BENCH_QUICK=1)', function () {
  this.timeout(480_000);

  it('runs every scenario, and every answer has the expected status', async () => {
    const server = new URL(testDatabaseUrl);
    server.pathname = '/postgres';
    const child = spawn(
      process.execPath,
      [
        '--require',
        'tsx/cjs',
        '-e',
        "require('./scripts/bench.ts').main().then((code) => process.exit(code), (err) => { console.error(err); process.exit(2); })",
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: 'test',
          BENCH_QUICK: '1',
          ...SMALL,
          BENCH_DATABASE_URL: server.toString(),
          REDIS_URL: testRedisUrl,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, output).to.equal(0);

    for (const name of SCENARIOS) {
      const row = output.split('\n').find((line) => line.startsWith(`| ${name} |`));
      expect(row, `${name} in\n${output}`).to.be.a('string');
      const [, wrong, total] = /\| (\d+) of (\d+) \| [^|]+ \|$/.exec(row!) ?? [];
      expect(Number(total), `${name}: answers`).to.be.greaterThan(0);
      expect(Number(wrong), `${name}: wrong answers`).to.equal(0);
    }
    expect(output).to.match(
      /OTP handed to the outbox driver, min \/ p50 \/ p99 \(\d+ messages\) \| \d+ \/ \d+ \/ \d+ ms/,
    );
    expect(output).to.match(/analytics ingest .* \| \d+ events\/s \([\d.]+% of COPY\)/);
    expect(output).to.match(
      /web process peak RSS, limits on \/ off \| \d+ MB \/ \d+ MB \| < 200 MB: (met|missed)/,
    );
    // The dashboard pages: the server's own time (Server-Timing) beside its target, and each page's.
    expect(output).to.match(
      /\| dashboard pages' server time \(Server-Timing `app`\), p50 \/ p99 \(\d+ pages\) \| [\d.]+ \/ [\d.]+ ms \| p99 < 50 ms: (met|missed) \|/,
    );
    for (const page of DASHBOARD_PAGES) {
      expect(output, page).to.match(
        new RegExp(
          `\\| dashboard page ${page}: server time p50 \\/ p99 \\([1-9]\\d* pages\\) \\| [\\d.]+ \\/ [\\d.]+ ms \\|`,
        ),
      );
    }
    // The flash sale, scaled down: exactly its keys sold, each once, no 5xx (the bench exits 1 otherwise),
    // each step's latencies; and what one checkout asks of Postgres beside the raw ceiling.
    expect(output).to.match(
      /\| flash sale: 5 keys, 30 buyers over 2 s .* \| 5 paid, 5 keys sold \(0 twice\), 25 told sold out .* 0 5xx \| .*: met \|/,
    );
    for (const step of ['checkout', 'initiate', 'payment page', 'pay', 'paid \\(status poll\\)']) {
      expect(output, step).to.match(
        new RegExp(`\\| flash sale step ${step}: p50 / p99 \\(\\d+ buyers\\) \\| \\d+ / \\d+ ms \\|`),
      );
    }
    expect(output).to.match(/\| flash sale: first payment to the 5th delivery \| [\d.]+ s \|/);
    expect(output).to.match(/\| checkout statements: per guest checkout .* \| [\d.]+ statements, /);
    expect(output).to.match(/\| raw ceiling: a checkout's \d+ writes .* \| \d+ checkouts\/s \|/);
    // Every target is printed beside its figure, met or not.
    for (const name of [
      'healthz',
      'payment/status',
      'embed product',
      'guest checkout',
      'auth/start',
      'dashboard pages',
    ]) {
      const row = output.split('\n').find((line) => line.startsWith(`| ${name} |`));
      expect(row, name).to.match(/\| (>= [\d.]+% of Koa|(server )?p99 < \d+ ms): (met|missed) \|$/);
    }
  });
});
