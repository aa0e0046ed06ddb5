/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk JSON answers the contract check has already validated */
import { expect } from 'chai';
import knexFactory, { Knex } from 'knex';
import { Model } from 'objection';
import { migrateDatabase } from '../../db/migrate';
import type { Store } from '../../db/models';
import { createDeps, Deps } from '../../shared/deps';
import { createProduct, createStore, merchantToken } from '../helpers/builders';
import { sharedDeps, testConfig } from '../helpers/deps';
import { deleteRedisKeys, TEST_QUEUE_PREFIX } from '../helpers/env';
import { startServer, TestServer } from '../helpers/http';
import { PgReplicaPair, startPgReplicaPair } from '../helpers/pg-replica';

/**
 * DATABASE_READ_URL against a real streaming replica (docs/scaling.md, "Postgres read replicas"): a
 * throwaway primary, a `pg_basebackup -R` replica that applies every commit APPLY_DELAY_MS late, and the
 * real web app on both. The Merchant lists read the replica and show its lag; a read that must see its
 * own write (the merchant's, through the Merchant API) and the reads that are never sent to a replica see
 * the primary; a replica that goes away is replaced by the primary with no error.
 */
const APPLY_DELAY_MS = 4_000;
const DATABASE = 'matjar_replica';

describe('Postgres read replicas (DATABASE_READ_URL)', function () {
  this.timeout(60_000);
  let pair: PgReplicaPair;
  let deps: Deps;
  let server: TestServer;
  let replica: Knex;
  let a: { store: Store; token: string };
  let b: { store: Store; token: string };
  const prefix = `${TEST_QUEUE_PREFIX}_replica`;

  const list = (who: { token: string }) =>
    server.request('/shawarma/products?per_page=50', { headers: { Authorization: `Bearer ${who.token}` } });
  const names = (res: { body: any }): string[] => res.body.data.data.map((p: any) => p.name).sort();

  /** Resolves once the replica has replayed the product row (the lag ends); answers how long it took. */
  async function replayed(productId: number, since: number): Promise<number> {
    for (;;) {
      const row = await replica('products').where('id', productId).first('id');
      if (row) return Date.now() - since;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  before(async function () {
    this.timeout(90_000);
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
    deps = await createDeps(
      testConfig({
        DATABASE_URL: pair.primaryUrl(DATABASE),
        DATABASE_READ_URL: pair.replicaUrl(DATABASE),
        // Longer than the replica's apply delay: the lagging replica stays in use, as one within bounds.
        DATABASE_READ_MAX_LAG_SECONDS: '30',
        QUEUE_PREFIX: prefix,
      }),
      { role: 'test', pool: { min: 0, max: 4 } },
    );
    Model.knex(deps.knex);
    server = await startServer(deps);
    replica = knexFactory({ client: 'pg', connection: pair.replicaUrl(DATABASE), pool: { min: 0, max: 1 } });

    const seed = async (name: string) => {
      const store = await createStore({ name });
      return { store, token: await merchantToken(store) };
    };
    a = await seed('Replica A');
    b = await seed('Replica B');
    const first = await createProduct(a.store, { name: 'A first' });
    await createProduct(b.store, { name: 'B first' });
    await replayed(first.id, Date.now());
    await deps.readKnex.checkHealth();
  });

  after(async function () {
    this.timeout(30_000);
    await server?.close();
    await replica?.destroy();
    await deps?.close();
    await pair?.stop();
    await deleteRedisKeys(prefix);
    await sharedDeps(); // the models go back to the run's database
  });

  it('Merchant lists read the replica and show its lag; reads kept on the primary do not', async () => {
    expect(await deps.readKnex.target(a.store.id)).to.equal('replica');
    const written = Date.now();
    // Written straight to the primary (as a buyer's checkout or another process would): no window opens.
    const second = await createProduct(a.store, { name: 'A second' });

    const lagging = await list(a);
    expect(lagging.status).to.equal(200);
    expect(names(lagging)).to.deep.equal(['A first']);
    // One product's detail is not a lag-tolerant read: the primary has it at once.
    const detail = await server.request(`/shawarma/products/${second.id}`, {
      headers: { Authorization: `Bearer ${a.token}` },
    });
    expect(detail.status).to.equal(200);
    expect((detail.body.data as any).name).to.equal('A second');

    const lagMs = await replayed(second.id, written);
    console.log(`      replica lag seen: ${lagMs} ms (recovery_min_apply_delay ${APPLY_DELAY_MS} ms)`);
    expect(names(await list(a))).to.deep.equal(['A first', 'A second']);
  });

  it("a merchant's own write is in its next list, read from the primary", async () => {
    const before = await list(b);
    const product = (before.body.data as any).data[0];
    const renamed = await server.request(`/shawarma/products/${product.id}`, {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${b.token}` },
      json: { name: 'B renamed' },
    });
    expect(renamed.status).to.equal(200);
    expect(await deps.readKnex.target(b.store.id)).to.equal('primary');
    expect(names(await list(b))).to.deep.equal(['B renamed']);
    // The replica has not applied the rename yet: the list above could only come from the primary.
    const onReplica = await replica('products').where('id', product.id).first('name');
    expect(onReplica.name).to.equal('B first');
    // Store A wrote nothing through the API: its reads still go to the replica.
    expect(await deps.readKnex.target(a.store.id)).to.equal('replica');
  });

  it('a replica that goes away falls back to the primary with no error', async () => {
    await pair.stopReplica();
    const third = await createProduct(a.store, { name: 'A third' });
    // The pool's replica connections are cut: this read meets the dead replica and runs on the primary.
    const res = await list(a);
    expect(res.status).to.equal(200);
    expect(names(res)).to.deep.equal(['A first', 'A second', 'A third']);
    const stats = await server.request('/shawarma/store/statics', {
      headers: { Authorization: `Bearer ${a.token}` },
    });
    expect(stats.status).to.equal(200);
    await deps.readKnex.checkHealth();
    expect(await deps.readKnex.target(a.store.id)).to.equal('primary');
    expect(deps.readKnex.lags()[0]!.lagMs).to.equal(Infinity);
    expect(third.id).to.be.a('number');
  });
});
