import { expect } from 'chai';
import { bullPrefix, QUEUE_NAMES } from '../../shared/queues';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { Deps } from '../../shared/deps';
import { createProduct, createStore, merchantToken } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { TEST_ENV } from '../helpers/env';
import { randomIp } from '../helpers/otp';
import { browse, hostedMethod, orderOf, paymentIdOf, sessionOf } from '../integration/payments/support';
import { httpClient } from '../helpers/http';
import { monitorRedis } from '../helpers/redis-monitor';
import { waitFor } from '../integration/queues/support';
import { freePort } from './support';

/**
 * The hot-read caches across real processes: two `web` processes (api/server.ts, each with its own memory)
 * and one `worker`, on one database and Redis prefix, as the Procfile runs them scaled out. A buyer opens
 * and pays a checkout on one web process; the other answers the new stock and the paid status with its
 * very next request, after both had the old values cached.
 */

const ROOT = path.resolve(__dirname, '../..');

interface Running {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  url: string;
}

async function launch(entry: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_PATH: process.env.NODE_PATH,
      ...TEST_ENV,
      LOG_LEVEL: 'info',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  await waitFor(
    `${entry} to log its ready line`,
    async () =>
      ready.test(output.stdout) ||
      (child.exitCode !== null
        ? Promise.reject(new Error(`${entry} exited early: ${output.stderr || output.stdout}`))
        : false),
    20_000,
    50,
  );
  return { child, output, url: `http://127.0.0.1:${port}` };
}

describe('hot-read caches across two web processes', function () {
  this.timeout(60_000);
  let deps: Deps;
  const started: Running[] = [];

  before(async () => {
    deps = await isolatedDeps();
    const env = { QUEUE_PREFIX: deps.config.queuePrefix, RATE_LIMITS: 'off', TRUST_PROXY: '1' };
    started.push(await launch('api/server.ts', env, /web ready on port \d+/));
    started.push(await launch('api/server.ts', env, /web ready on port \d+/));
    started.push(await launch('workers/index.ts', env, /worker ready: queues/));
  });
  after(async () => {
    await Promise.all(
      started.splice(0).map(
        (run) =>
          new Promise<void>((resolve) => {
            if (run.child.exitCode !== null) return resolve();
            run.child.on('exit', () => resolve());
            run.child.kill('SIGTERM');
          }),
      ),
    );
  });

  const get = async (base: string, p: string, headers: Record<string, string> = {}) => {
    const res = await fetch(base + p, { headers: { 'X-Forwarded-For': randomIp(), ...headers } });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };
  const post = async (base: string, p: string, json: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(base + p, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': randomIp(), ...headers },
      body: JSON.stringify(json),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };

  it('stock taken and a checkout paid on web 1 are seen by web 2 at its next request', async () => {
    const [web1, web2] = [started[0]!.url, started[1]!.url];
    const store = await createStore();
    await hostedMethod(deps, store, 'card', 'sandbox');
    const product = await createProduct(store, { price_minor: 2_500, stock: 10 });
    const key = { 'X-Embed-Key': store.embed_key };
    const stock = async (base: string) =>
      ((await get(base, `/api/embed/product/${product.id}`, key)).body.data.stock as { quantity: number })
        .quantity;
    for (const base of [web1, web2, web1, web2]) expect(await stock(base)).to.equal(10);

    const opened = await post(
      web1,
      '/api/embed/guest/checkout',
      {
        product_id: product.id,
        quantity: 2,
        customer_first_name: 'Two',
        customer_last_name: 'Processes',
        customer_email: 'two@example.com',
        customer_phone: '500000777',
        customer_country_code: '966',
      },
      key,
    );
    expect(opened.status).to.equal(200);
    expect(await stock(web2)).to.equal(8);

    const checkoutUrl = opened.body.data.checkout_url as string;
    const initiated = await post(
      web1,
      '/api/embed/guest/payment/initiate',
      { checkout_url: checkoutUrl, payment_method: 'card' },
      key,
    );
    expect(initiated.status).to.equal(200);
    const redirect = new URL(initiated.body.data.redirect_url as string);
    await sessionOf(paymentIdOf(redirect.href));
    const status = async (base: string) =>
      (await get(base, `/api/embed/payment/status/${encodeURIComponent(checkoutUrl)}`)).body.data;
    for (const base of [web1, web2, web1, web2, web1, web2]) {
      expect(await status(base)).to.deep.equal({ is_paid: false, order_id: null });
    }

    const chosen = await browse(httpClient(web1, 'test'), redirect.toString(), { outcome: 'paid' });
    expect(chosen.status).to.equal(200);
    const order = await orderOf(opened.body.data.checkout_id as number, 20_000);
    // The writer bumps the status counters just after its commit: once web 1 answers paid, web 2 (which
    // cached "not paid" three times above) answers paid at its very next request.
    await waitFor('web 1 to answer paid', async () => (await status(web1)).is_paid === true);
    expect(await status(web2)).to.deep.equal({ is_paid: true, order_id: order.id });
    expect(await status(web1)).to.deep.equal({ is_paid: true, order_id: order.id });
  });

  it('a cache hit asks Redis nothing; a price change is seen by both, also after their tracking connections dropped', async () => {
    const [web1, web2] = [started[0]!.url, started[1]!.url];
    const store = await createStore();
    const product = await createProduct(store, { price_minor: 2_500, stock: 10 });
    const key = { 'X-Embed-Key': store.embed_key };
    const price = async (base: string) =>
      ((await get(base, `/api/embed/product/${product.id}`, key)).body.data.price as { actual: number })
        .actual;
    const token = await merchantToken(store);
    const setPrice = async (value: string) => {
      const res = await fetch(`${web1}/shawarma/products/${product.id}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ price: value }),
      });
      expect(res.status, await res.text()).to.equal(200);
    };
    const redis = await monitorRedis(deps.config.queuePrefix);
    // The worker process on the same prefix keeps polling its queues (stalled-job checks every 10 s, its
    // blocking waits): those commands are the worker's, not a cache hit's, so they are left out.
    const queueKeys = QUEUE_NAMES.map((q) => `"${bullPrefix(deps.config.queuePrefix)}:${q}:`);
    const webCommands = (lines: string[]) => lines.filter((l) => !queueKeys.some((k) => l.includes(k)));
    try {
      for (const base of [web1, web2]) expect(await price(base)).to.equal(25);
      // Warm: both answer from memory, and each hit sends Redis no command (rate limits are off here).
      const hits = await redis.commandsDuring(async () => {
        for (const base of [web1, web2, web1, web2]) expect(await price(base)).to.equal(25);
      });
      expect(webCommands(hits)).to.deep.equal([]);

      await setPrice('30.00');
      expect(await price(web2)).to.equal(30);
      expect(await price(web1)).to.equal(30);

      // Both web processes lose their tracking connection (and any invalidation on it); a change made
      // right then is still seen at their next request.
      const tracking = await redis.clientIds(`${deps.config.queuePrefix}:web:tracking`);
      expect(tracking).to.have.length(2);
      for (const id of tracking) await redis.kill(id);
      await setPrice('35.00');
      expect(await price(web2)).to.equal(35);
      expect(await price(web1)).to.equal(35);

      // Tracking comes back by itself: hits are free again and changes still arrive.
      await waitFor(
        'both tracking connections back',
        async () =>
          (await redis.clientIds(`${deps.config.queuePrefix}:web:tracking`)).length === 2 || undefined,
      );
      await setPrice('40.00');
      for (const base of [web2, web1]) expect(await price(base)).to.equal(40);
      await waitFor('hits free again', async () => {
        const commands = await redis.commandsDuring(async () => {
          for (const base of [web1, web2]) expect(await price(base)).to.equal(40);
        });
        return webCommands(commands).length === 0 || undefined;
      });
    } finally {
      redis.close();
    }
  });
});
