import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { Deps } from '../../shared/deps';
import { createPaymentMethod, createProduct, createStore } from '../helpers/builders';
import { isolatedDeps } from '../helpers/deps';
import { TEST_ENV } from '../helpers/env';
import { waitFor } from '../integration/queues/support';
import { freePort } from './support';

/**
 * A newcomer's purchase with the sandbox provider, against the real `web` and `worker` processes and
 * nothing but HTTP, as a browser and the embed widget would do it: guest checkout, payment initiation,
 * the platform's payment page, the sandbox's Pay button, status polling, and the key in the dev outbox.
 */

const ROOT = path.resolve(__dirname, '../..');

interface Running {
  child: ChildProcess;
  output: string;
}

function launch(entry: string, env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...TEST_ENV, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: Running = { child, output: '' };
  child.stdout?.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
  return run;
}

async function ready(run: Running, line: RegExp): Promise<void> {
  await waitFor(
    `ready line ${line}`,
    async () =>
      line.test(run.output) ||
      (run.child.exitCode !== null ? Promise.reject(new Error(`exited early: ${run.output}`)) : false),
    30_000,
    50,
  );
}

async function stop(run: Running): Promise<void> {
  if (run.child.exitCode !== null) return;
  const exited = new Promise((resolve) => run.child.once('exit', resolve));
  run.child.kill('SIGTERM');
  await exited;
}

describe('purchase with the sandbox provider (web and worker processes)', function () {
  this.timeout(90_000);
  let deps: Deps;
  let base: string;
  const processes: Running[] = [];

  before(async () => {
    deps = await isolatedDeps();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const env = { QUEUE_PREFIX: deps.config.queuePrefix, PORT: String(port), PUBLIC_BASE_URL: base };
    const web = launch('api/server.ts', env);
    const worker = launch('workers/index.ts', env);
    processes.push(web, worker);
    await Promise.all([
      ready(web, /web ready on port \d+/),
      ready(worker, /worker ready: queues .*\bpayments\b/),
    ]);
  });
  after(async () => {
    await Promise.all(processes.map(stop));
  });

  async function call(url: string, init: RequestInit = {}): Promise<Response> {
    return fetch(url.startsWith('http') ? url : base + url, { redirect: 'manual', ...init });
  }

  it('buys a code key as a guest and finds it in the dev outbox', async () => {
    const store = await createStore({ name: 'Demo Store' });
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
    const product = await createProduct(store, { name: 'Demo game key', type: 'code', price_minor: 1_500 });
    await deps.knex('product_codes').insert({ product_id: product.id, code: `DEMO-${store.id}-KEY` });

    const checkoutRes = await call('/api/embed/guest/checkout', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Embed-Key': store.embed_key },
      body: JSON.stringify({
        product_id: product.id,
        quantity: 1,
        customer_first_name: 'New',
        customer_last_name: 'Comer',
        customer_email: 'newcomer@example.com',
        customer_phone: '500009777',
        customer_country_code: '966',
      }),
    });
    expect(checkoutRes.status).to.equal(200);
    const checkout = ((await checkoutRes.json()) as { data: { checkout_url: string; payment_url: string } })
      .data;
    expect(checkout.payment_url.startsWith(`${base}/pay/`)).to.equal(true);

    const initiateRes = await call('/api/embed/guest/payment/initiate', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Embed-Key': store.embed_key },
      body: JSON.stringify({ checkout_url: checkout.checkout_url, payment_method: 'card' }),
    });
    const initiated = ((await initiateRes.json()) as { data: { type: string; redirect_url: string } }).data;
    expect(initiated.type).to.equal('redirect');

    // The redirect_url is the sandbox's page (docs/operations.md): Pay and Fail, taken on the same address.
    const sandboxPage = await call(initiated.redirect_url);
    expect(sandboxPage.status).to.equal(200);
    const html = await sandboxPage.text();
    expect(html)
      .to.match(/SAR\s15\.00/)
      .and.to.contain('>Pay</button>')
      .and.to.contain('>Fail</button>');

    const pay = await call(initiated.redirect_url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'outcome=paid',
    });
    expect(pay.status).to.equal(200);
    await pay.arrayBuffer();

    const status = await waitFor('is_paid', async () => {
      const res = await call(`/api/embed/payment/status/${encodeURIComponent(checkout.checkout_url)}`);
      const body = (await res.json()) as { data?: { is_paid: boolean; order_id: number | null } };
      return body.data?.is_paid ? body.data : undefined;
    });
    expect(status.order_id).to.be.a('number');

    const messages = await waitFor('the key in the dev outbox', async () => {
      const res = await call('/__dev/outbox?to=966500009777');
      const body = (await res.json()) as { messages: { body: string }[] };
      return body.messages.some((m) => m.body.includes(`DEMO-${store.id}-KEY`)) ? body.messages : undefined;
    });
    // The buyer reads the store's own order number (docs/dashboard.md, "Order numbers").
    const placed = await deps.knex('orders').where({ id: status.order_id }).first('number');
    expect(messages.find((m) => m.body.includes(`DEMO-${store.id}-KEY`))?.body).to.contain(
      `order #${placed.number}`,
    );
  });
});
