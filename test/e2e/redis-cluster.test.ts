import { expect } from 'chai';
import knexFactory, { Knex } from 'knex';
import { migrateDatabase } from '../../db/migrate';
import type { License, Product, Store } from '../../db/models';
import { createDeps, Deps, StartupError } from '../../shared/deps';
import { deleteKeysWithPrefix, isCluster } from '../../shared/redis';
import { createProduct, createStore, merchantToken } from '../helpers/builders';
import { GUEST_BUYER } from '../helpers/checkouts';
import { isolatedDeps, sharedDeps, testConfig } from '../helpers/deps';
import { httpClient, TestResponse, TestServer } from '../helpers/http';
import { randomIp } from '../helpers/otp';
import { PgReplicaPair, startPgReplicaPair } from '../helpers/pg-replica';
import { RedisCluster } from '../helpers/redis-cluster';
import { commandsOf, FivemClient, fivemProduct, gameServer } from '../integration/fivem/support';
import { insertLicense, licensedProduct } from '../integration/license/support';
import { browse, guestInitiate, hostedMethod } from '../integration/payments/support';
import { sleep, waitFor } from '../integration/queues/support';
import { Entry, expectOneOrderAndKeyEach, freePort, launch, Running } from './support';

/** Checkouts paid while the cluster fails over (a manual failover, then a master killed). */
const CHECKOUTS = 12;
const CONCURRENT = 4;
const JOB_LOCK_DURATION_MS = '2000';
/** Answers the platform may give while a master changes hands: success, or 503 (docs/outages.md). */
const ACCEPTABLE = new Set([200, 303, 503]);
/** The throwaway primary's database, and how late its streaming replica applies each commit. */
const DATABASE = 'matjar_cluster';
const APPLY_DELAY_MS = 300;

/** Index and sequential scans of the user tables so far: reads that ran on this server (not health checks). */
async function tableReads(knex: Knex): Promise<number> {
  const { rows } = await knex.raw<{ rows: { reads: string | null }[] }>(
    'select sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)) as reads from pg_stat_user_tables',
  );
  return Number(rows[0]?.reads ?? 0);
}

/**
 * The platform on a real Redis Cluster (three masters, three replicas, test/helpers/redis-cluster.ts)
 * through REDIS_CLUSTER_NODES and on a Postgres primary with a streaming replica (DATABASE_URL and
 * DATABASE_READ_URL, test/helpers/pg-replica.ts): the Procfile's processes as child processes (2 web,
 * 3 workers each serving its own queue group with its own concurrency, 2 schedulers) and this test's own
 * deps and data builders on the same cluster and primary.
 * The purchase, OTP, license and FiveM paths run on it; then, during traffic, the master holding the
 * queues is failed over by hand (CLUSTER FAILOVER on its replica) and the master holding the rate limits
 * is killed (SIGKILL): every checkout still becomes one order with one key delivered once, no job fails,
 * every answer is a success or a 503, and the rate limits still count on the new masters.
 */
describe('Redis Cluster: the platform on 3 masters + 3 replicas, a master failed over and one killed', function () {
  this.timeout(150_000);
  let cluster: RedisCluster;
  let pair: PgReplicaPair;
  /** This test's own connection to the replica, to see what was read there. */
  let replica: Knex;
  let deps: Deps;
  let store: Store;
  let keys: Product;
  /** The product bought during the failovers. */
  let spare: Product;
  let fivem: Product;
  let fivemSecret: string;
  let license: License;
  let licensed: Product;
  const running: { entry: Entry; run: Running }[] = [];
  const webs: TestServer[] = [];
  /** Status and duration of every answer during the failovers. */
  const answers: { status: number; ms: number; what: string }[] = [];

  before(async () => {
    // The cluster and the Postgres pair start side by side; the replica is a base backup of the migrated
    // primary.
    const primary = (async () => {
      pair = await startPgReplicaPair({ applyDelayMs: APPLY_DELAY_MS });
      const admin = knexFactory({
        client: 'pg',
        connection: pair.primaryUrl('postgres'),
        pool: { min: 0, max: 1 },
      });
      try {
        await admin.raw(`create database ${DATABASE}`);
      } finally {
        await admin.destroy();
      }
      await migrateDatabase(pair.primaryUrl(DATABASE));
      await pair.startReplica();
    })();
    [cluster] = await Promise.all([RedisCluster.start(3), primary]);
    const database = {
      DATABASE_URL: pair.primaryUrl(DATABASE),
      DATABASE_READ_URL: pair.replicaUrl(DATABASE),
    };
    // The data builders write through the models, which isolatedDeps binds to this primary (until after()).
    deps = await isolatedDeps({ REDIS_CLUSTER_NODES: cluster.env, JOB_LOCK_DURATION_MS, ...database });
    replica = knexFactory({ client: 'pg', connection: pair.replicaUrl(DATABASE), pool: { min: 0, max: 1 } });
    store = await createStore({ name: 'Cluster Store' });
    await hostedMethod(deps, store, 'card', 'sandbox');
    keys = await createProduct(store, { name: 'Game key', type: 'code', price_minor: 1_000 });
    await deps.knex('product_codes').insert(
      Array.from({ length: 4 }, (_, i) => ({
        product_id: keys.id,
        code: `CLUSTER-${store.id}-${String(i).padStart(4, '0')}`,
      })),
    );
    spare = await createProduct(store, { name: 'Spare key', type: 'code', price_minor: 1_000 });
    await deps.knex('product_codes').insert(
      Array.from({ length: CHECKOUTS + 4 }, (_, i) => ({
        product_id: spare.id,
        code: `SPARE-${store.id}-${String(i).padStart(4, '0')}`,
      })),
    );
    fivem = await fivemProduct(store, [{ command: 'give {player} vip', require_online: false }]);
    fivemSecret = (await gameServer(deps, store)).secret;
    licensed = await licensedProduct(store, deps.cipher);
    license = await insertLicense(licensed);

    const ports = [await freePort(), await freePort()];
    const env = {
      ...database,
      REDIS_CLUSTER_NODES: cluster.env,
      QUEUE_PREFIX: deps.config.queuePrefix,
      JOB_LOCK_DURATION_MS,
      TRUST_PROXY: '1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${ports[0]}`,
    };
    const plan: [Entry, NodeJS.ProcessEnv][] = [
      ['web', { PORT: String(ports[0]) }],
      ['web', { PORT: String(ports[1]) }],
      // One worker per queue group, each with its own concurrency (docs/scaling.md, "Worker processes").
      ['worker', { WORKER_QUEUES: 'payments,fulfilment,licenses,fivem', WORKER_CONCURRENCY_PAYMENTS: '8' }],
      ['worker', { WORKER_QUEUES: 'otp,messages,merchant-webhooks', WORKER_CONCURRENCY: '4' }],
      ['worker', { WORKER_CONCURRENCY: '2' }],
      ['scheduler', {}],
      ['scheduler', {}],
    ];
    for (const [entry, extra] of plan)
      running.push({ entry, run: await launch(entry, { ...env, ...extra }) });
    const ready: Record<Entry, RegExp> = {
      web: /web ready on port \d+/,
      worker: /worker ready: queues /,
      scheduler: /scheduler ready: /,
    };
    await Promise.all(
      running.map(({ entry, run }) =>
        waitFor(
          `${entry} to log its ready line`,
          async () =>
            ready[entry].test(run.output.stdout) ||
            (run.child.exitCode !== null
              ? Promise.reject(new Error(`${entry} exited: ${run.output.stderr || run.output.stdout}`))
              : false),
          60_000,
          50,
        ),
      ),
    );
    for (const port of ports) webs.push(httpClient(`http://127.0.0.1:${port}`, deps.config.nodeEnv));
  });

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const { entry, run } of running) {
      const { exitCode, signalCode } = run.child;
      console.error(`--- ${entry} pid ${run.child.pid} (exit ${exitCode ?? signalCode ?? 'running'})`);
      console.error((run.output.stdout + run.output.stderr).slice(-2_000));
    }
  });

  after(async () => {
    await Promise.all(
      running.map(async ({ run }) => {
        if (run.child.exitCode !== null || run.child.signalCode !== null) return;
        run.child.kill('SIGTERM');
        await Promise.race([run.exited, sleep(10_000)]);
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      }),
    );
    await deps?.close();
    await replica?.destroy();
    await Promise.all([cluster?.stop(), pair?.stop()]);
    await sharedDeps(); // the models go back to the run's database, for the files that run next
  });

  /** A request retried while it answers 503 (a master changing hands); every answer is recorded. */
  async function through503(what: string, send: () => Promise<TestResponse>): Promise<TestResponse> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const started = Date.now();
      const res = await send();
      answers.push({ status: res.status, ms: Date.now() - started, what });
      expect(ACCEPTABLE.has(res.status), `${what}: ${res.status} ${res.text}`).to.equal(true);
      if (res.status !== 503 || Date.now() > deadline) return res;
      await sleep(100);
    }
  }

  /** One guest buyer: checkout on one web process, payment on the other, Pay on the sandbox page. */
  async function buy(i: number, product: Product, fields?: Record<string, string>): Promise<number> {
    const [a, b] = [webs[i % 2]!, webs[(i + 1) % 2]!];
    const opened = await through503(`checkout ${i}`, () =>
      a.request('/api/embed/guest/checkout', {
        method: 'POST',
        json: {
          quantity: 1,
          ...GUEST_BUYER,
          customer_phone: String(500_400_000 + i),
          product_id: product.id,
          fields,
        },
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
      }),
    );
    expect(opened.status, opened.text).to.equal(200);
    const checkout = opened.body.data as { checkout_url: string; checkout_id: number };
    const initiated = await through503(`initiate ${i}`, () =>
      guestInitiate(b, store, checkout.checkout_url, 'card'),
    );
    expect(initiated.status, initiated.text).to.equal(200);
    const redirectUrl = (initiated.body.data as { redirect_url: string }).redirect_url;
    // 503 until a worker has opened the sandbox session, and while a master changes hands.
    const paid = await through503(`pay ${i}`, () => browse(a, redirectUrl, { outcome: 'paid' }));
    expect(paid.status, paid.text).to.equal(200);
    return checkout.checkout_id;
  }

  /** Buyers (phones) who received their order so far. */
  async function deliveredCount(): Promise<number> {
    const [{ delivered }] = await deps
      .knex('outbound_messages')
      .where({ store_id: store.id, purpose: 'order_delivery' })
      .countDistinct<{ delivered: string }[]>({ delivered: 'to' });
    return Number(delivered);
  }

  async function deliveredTo(phones: number): Promise<void> {
    await waitFor(`${phones} orders delivered`, async () => (await deliveredCount()) >= phones, 60_000, 200);
  }

  it('serves the purchase, OTP, license verify and FiveM paths through the cluster client', async () => {
    // Each worker serves its group with the concurrency its environment gave it.
    const workerLines = running.filter((r) => r.entry === 'worker').map((r) => r.run.output.stdout);
    expect(workerLines[0]).to.include('worker ready: queues payments, fulfilment, licenses, fivem');
    expect(workerLines[0]).to.include('"payments":8').and.include('"fulfilment":5');
    expect(workerLines[1]).to.include('"otp":4').and.include('"messages":4');
    expect(workerLines[2]).to.include('"maintenance":2');

    // Purchase: a key product and a FiveM product, each paid through the sandbox provider.
    const checkoutId = await buy(0, keys);
    await buy(1, fivem, { '1': '77' });
    await deliveredTo(1);
    await expectOneOrderAndKeyEach(deps.knex, [checkoutId], keys.id, 1);
    const game = new FivemClient(webs[1]!, fivemSecret);
    const queued = await waitFor('the FiveM command to be queued', async () => {
      const res = await game.queue();
      expect(res.status, res.text).to.equal(200);
      return commandsOf(res).length > 0 ? commandsOf(res) : false;
    });
    expect(queued.map((c) => c.command)).to.deep.equal(['give 77 vip']);

    // OTP: the code is sent by the otp worker and verified on the other web process.
    const started = await webs[0]!.request('/api/embed/auth/start', {
      method: 'POST',
      json: { product_id: keys.id, country_code: '966', phone: '500400900' },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(started.status, started.text).to.equal(200);
    const code = await waitFor('the OTP message', async () => {
      const res = await webs[1]!.request('/__dev/outbox?to=966500400900');
      const messages = (res.body as { messages: { body: string }[] }).messages;
      return messages[0]?.body.match(/(?<!\d)\d{4}(?!\d)/)?.[0] ?? false;
    });
    const verified = await webs[1]!.request('/api/embed/auth/verify', {
      method: 'POST',
      json: { session_token: (started.body.data as { session_token: string }).session_token, code },
      headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(verified.status, verified.text).to.equal(200);

    // License verify (its answer cache stamps live in the cluster's {cache} slot).
    for (const web of webs) {
      const res = await web.request('/verify', {
        method: 'POST',
        json: { product_id: licensed.id, license_key: license.key },
        headers: { 'X-Forwarded-For': randomIp() },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.success).to.equal(true);
    }
  });

  it('loses no job and runs none twice while masters fail over; answers are 200 or 503; limits hold', async () => {
    const prefix = deps.config.queuePrefix;
    const delivered = await deliveredCount();
    const queues = await cluster.ownerOf(`{${prefix}}`);
    const ids: number[] = [];
    let next = 0;
    let failovers: Promise<void> = Promise.resolve();
    // License checks all along, from addresses of their own (the limits are not what is tested here).
    let verifying = true;
    const verifier = (async () => {
      while (verifying) {
        await through503('verify', () =>
          webs[next % 2]!.request('/verify', {
            method: 'POST',
            json: { product_id: licensed.id, license_key: license.key },
            headers: { 'X-Forwarded-For': randomIp() },
          }),
        );
        await sleep(20);
      }
    })();
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        while (next < CHECKOUTS) {
          const i = next + 10;
          next += 1;
          ids.push(await buy(i, spare));
          if (ids.length === 3) {
            // The queues' master hands over to its replica (no write lost), then the rate limits' master
            // is killed outright. Replication is asynchronous, so a kill -9 of the master that holds the
            // queues can lose a job added in its last milliseconds, which only the sweeps bring back
            // (docs/scaling.md, "Redis Cluster"): when {rl} shares the queues' master, another master
            // is the one killed.
            failovers = (async () => {
              await cluster.failover(queues.replica);
              const queuesNow = await cluster.ownerOf(`{${prefix}}`);
              let victim = await cluster.ownerOf('{rl}');
              for (let k = 0; victim.master === queuesNow.master; k++) {
                victim = await cluster.ownerOf(`{other-${k}}`);
              }
              await cluster.kill9(victim.master);
              await cluster.untilPromoted(victim.replica);
            })();
          }
        }
      }),
    );
    await failovers;
    verifying = false;
    await verifier;
    expect(ids).to.have.length(CHECKOUTS);

    await deliveredTo(delivered + CHECKOUTS);
    const sold = await expectOneOrderAndKeyEach(deps.knex, ids, spare.id, CHECKOUTS);
    const deliveries = await deps
      .knex('outbound_messages')
      .where({ store_id: store.id, purpose: 'order_delivery' })
      .select<{ body: string }[]>('body');
    for (const { code } of sold)
      expect(
        deliveries.filter((m) => m.body.includes(code)),
        code,
      ).to.have.length(1);

    const busy = Object.values(deps.queues).filter((q) => q.name !== 'maintenance');
    await waitFor('the queues to go idle', async () => {
      const counts = await Promise.all(busy.map((q) => q.getJobCounts('waiting', 'prioritized', 'active')));
      return counts.every((c) => c.waiting + c.prioritized + c.active === 0);
    });
    for (const [name, queue] of Object.entries(deps.queues))
      expect(await queue.getJobCountByTypes('failed'), `${name}: failed jobs`).to.equal(0);

    // The rate limits count on the new masters: 30 product reads a minute from one address, then 429.
    const ip = randomIp();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i += 1) {
      const res = await webs[i % 2]!.request(`/api/embed/product/${keys.id}`, {
        headers: { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': ip },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 200)).to.equal(true);
    expect(statuses[30]).to.equal(429);

    const unavailable = answers.filter((a) => a.status === 503);
    const slowest = (of: typeof answers) =>
      of.reduce<(typeof answers)[number] | null>((top, a) => (top && top.ms >= a.ms ? top : a), null);
    const [slow503, slowAny] = [slowest(unavailable), slowest(answers)];
    console.log(
      `      ${answers.length} answers during the failovers: ${unavailable.length} were 503 (slowest 503 ` +
        `${slow503 ? `${slow503.ms} ms, ${slow503.what}` : 'none'}; slowest answer ${slowAny?.ms} ms, ` +
        `${slowAny?.what} ${slowAny?.status})`,
    );
  });

  it('reads the Merchant lists on the streaming replica, and a merchant sees their own write at once', async () => {
    const token = await merchantToken(store);
    const auth = { Authorization: `Bearer ${token}` };
    const readsBefore = await tableReads(replica);
    // No write of this store through the Merchant API yet: the lists are lag-tolerant reads, on the replica.
    const orders = await webs[0]!.request('/shawarma/orders?per_page=50', { headers: auth });
    expect(orders.status, orders.text).to.equal(200);
    expect((orders.body.data as { data: unknown[] }).data).to.have.length(CHECKOUTS + 2);
    const served = await waitFor(
      'the replica to count the list reads',
      async () => {
        const reads = await tableReads(replica);
        return reads > readsBefore ? reads - readsBefore : false;
      },
      10_000,
      100,
    );

    // Read your writes: a rename through one web process is in the list the other one reads next.
    const renamed = await webs[1]!.request(`/shawarma/products/${spare.id}`, {
      method: 'PATCH',
      headers: auth,
      json: { name: 'Spare key, renamed' },
    });
    expect(renamed.status, renamed.text).to.equal(200);
    const products = await webs[0]!.request('/shawarma/products?per_page=50', { headers: auth });
    expect(products.status, products.text).to.equal(200);
    const names = (products.body.data as { data: { id: number; name: string }[] }).data;
    expect(names.find((p) => p.id === spare.id)?.name).to.equal('Spare key, renamed');
    console.log(`      the replica served ${served} table scans of the Merchant lists`);
  });

  it('deletes keys by prefix on every master (a SCAN sees one node only)', async () => {
    const prefix = `${deps.config.queuePrefix}:scan`;
    const redis = deps.redis;
    for (let i = 0; i < 40; i += 1) await redis.set(`${prefix}:${i}`, String(i));
    if (!isCluster(redis)) expect.fail('the test deps connect through the cluster client');
    /** Keys under the prefix on each master, by a full SCAN of that node. */
    const holding = (): Promise<number[]> =>
      Promise.all(
        redis.nodes('master').map(async (node) => {
          let [cursor, count] = ['0', 0];
          do {
            const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
            [cursor, count] = [next, count + keys.length];
          } while (cursor !== '0');
          return count;
        }),
      );
    expect((await holding()).filter((count) => count > 0).length, 'masters holding keys').to.be.greaterThan(
      1,
    );
    expect(await deleteKeysWithPrefix(redis, `${prefix}:`)).to.equal(40);
    expect(await holding()).to.deep.equal(redis.nodes('master').map(() => 0));
  });

  it('refuses to start when no node of REDIS_CLUSTER_NODES answers, naming the nodes', async () => {
    const port = await freePort();
    const started = createDeps(testConfig({ REDIS_CLUSTER_NODES: `127.0.0.1:${port}` }), { role: 'test' });
    const err = await started.then(
      (unexpected) => unexpected.close().then(() => expect.fail('started without Redis')),
      (refused: Error) => refused,
    );
    expect(err).to.be.instanceOf(StartupError);
    expect(err.message).to.equal(
      `Redis is not reachable at cluster 127.0.0.1:${port} (no answer within 5000 ms)`,
    );
  });
});
