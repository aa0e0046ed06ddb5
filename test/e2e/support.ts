import { ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import { TEST_ENV } from '../helpers/env';
import { waitFor } from '../integration/queues/support';

/** A TCP port free on 127.0.0.1 right now: the system's pick for a listener, closed again at once. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The Procfile's long-running processes, started as real child processes (test/e2e). */
export const ROOT = path.resolve(__dirname, '../..');
export const ENTRIES = {
  worker: 'workers/index.ts',
  scheduler: 'workers/scheduler.ts',
  web: 'api/server.ts',
} as const;
export type Entry = keyof typeof ENTRIES;
export const READY: Record<Entry, RegExp> = {
  worker: /worker ready: queues .*\bmaintenance\b/,
  scheduler: /scheduler ready: expire-checkouts/,
  web: /web ready on port \d+/,
};

export interface Running {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; at: number }>;
}

export async function launch(entry: Entry, env: NodeJS.ProcessEnv): Promise<Running> {
  const port = entry === 'web' ? String(await freePort()) : undefined;
  // Node with tsx's require hook, not `npx tsx`: signals then reach our process, not a wrapper.
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', ENTRIES[entry]], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...TEST_ENV,
      LOG_LEVEL: 'info',
      PORT: port,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return { child, output, exited };
}

export async function untilReady(run: Running, entry: Entry): Promise<void> {
  await waitFor(
    `${entry} to log its ready line`,
    async () =>
      READY[entry].test(run.output.stdout) ||
      (run.child.exitCode !== null
        ? Promise.reject(new Error(`${entry} exited early: ${run.output.stderr || run.output.stdout}`))
        : false),
    60_000,
    50,
  );
}

/** Sends SIGTERM and resolves with the exit code and how long the process took to stop. */
export async function terminate(run: Running): Promise<{ code: number | null; ms: number }> {
  const sent = Date.now();
  run.child.kill('SIGTERM');
  const { code, at } = await run.exited;
  return { code, ms: at - sent };
}

/**
 * Every one of `count` checkouts has exactly one order, and every order one code key of `productId`:
 * none sold twice, the spare ones still on sale. Returns the keys sold, for the delivery checks.
 */
export async function expectOneOrderAndKeyEach(
  knex: Knex,
  checkoutIds: readonly number[],
  productId: number,
  count: number,
): Promise<{ code: string; order_item_id: number }[]> {
  const orders = await knex('orders').whereIn('checkout_id', checkoutIds).select('id', 'checkout_id');
  expect(orders).to.have.length(count);
  expect(new Set(orders.map((o: { checkout_id: number }) => o.checkout_id)).size).to.equal(count);
  const sold = await knex('product_codes')
    .where({ product_id: productId })
    .whereNotNull('order_item_id')
    .select<{ code: string; order_item_id: number }[]>('code', 'order_item_id');
  expect(sold).to.have.length(count);
  expect(new Set(sold.map((c) => c.order_item_id)).size).to.equal(count);
  return sold;
}
