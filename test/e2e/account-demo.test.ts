import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { createApp } from '../../api/app';
import type { Deps } from '../../shared/deps';
import { loadFixture } from '../../shared/services/seed';
import { processors } from '../../workers/processors';
import { WorkerPool } from '../../workers/worker-pool';
import { isolatedDeps } from '../helpers/deps';
import { freePort, ROOT } from './support';

/**
 * `npm run demo` (scripts/demo.ts) against the platform seeded with fixtures/demo.json: the demo buyer pays
 * for the demo store's key, then signs in to the buyer's account with the same phone and finds the order
 * there (docs/account.md). The script runs in this process against a real server and real workers.
 */
describe('the demo buyer’s account', function () {
  this.timeout(120_000);
  let deps: Deps;
  let server: http.Server;
  let workers: WorkerPool;
  let base: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    deps = await isolatedDeps({ PUBLIC_BASE_URL: base, TRUST_PROXY: '1' });
    server = http.createServer(createApp(deps).callback());
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    workers = await WorkerPool.start(deps, {
      registry: processors,
      queues: ['otp', 'payments', 'fulfilment', 'licenses', 'messages', 'emails'],
    });
    const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'fixtures/demo.json'), 'utf8')) as Parameters<
      typeof loadFixture
    >[1];
    await loadFixture(deps, demo);
  });

  after(async () => {
    await workers?.close(1_000);
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('pays for the key, then signs in to /account with the demo buyer’s phone and finds the order', async () => {
    process.env.DEMO_BASE_URL = base;
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    // The script prints its steps; kept for the assertion (and shown when it fails).
    process.stdout.write = ((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    let code: number;
    try {
      // Read after DEMO_BASE_URL is set: the script takes its address when loaded.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { main } = require('../../scripts/demo') as typeof import('../../scripts/demo');
      code = await main();
    } finally {
      process.stdout.write = write;
      delete process.env.DEMO_BASE_URL;
    }
    const out = lines.join('');
    expect(code, out).to.equal(0);
    expect(out).to.match(/the account lists order \d+ with its key/);
  });
});
