import { expect } from 'chai';
import crypto from 'node:crypto';
import type { Deps } from '../../../shared/deps';
import { enqueue, MaintenanceTask } from '../../../shared/queues';
import {
  expireCheckouts,
  expireLicenses,
  purgeIdempotency,
  purgeOtpSessions,
} from '../../../shared/services/maintenance';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps, truncateAll } from '../../helpers/deps';
import { waitFor } from './support';

const HOUR = 3600 * 1000;
const ago = (ms: number): Date => new Date(Date.now() - ms);
const ahead = (ms: number): Date => new Date(Date.now() + ms);
const hex = (): string => crypto.randomBytes(32).toString('hex');

describe('maintenance tasks', () => {
  let deps: Deps;
  let storeId: number;
  let productId: number;

  before(async () => {
    deps = await isolatedDeps();
  });

  beforeEach(async () => {
    await truncateAll(deps);
    const store = await createStore();
    storeId = store.id;
    productId = (await createProduct(store, { type: 'code' })).id;
  });

  async function insertCheckout(status: string, expiresAt: Date): Promise<number> {
    const [row] = await deps
      .knex('checkouts')
      .insert({
        store_id: storeId,
        token_hash: hex(),
        customer_first_name: 'Sara',
        customer_last_name: 'Ali',
        customer_email: 'sara@example.com',
        customer_country_code: '966',
        customer_phone: '500000001',
        product_id: productId,
        quantity: 1,
        unit_price_minor: 1000,
        subtotal_minor: 1000,
        total_minor: 1000,
        currency: 'SAR',
        status,
        reserved: true,
        expires_at: expiresAt,
      })
      .returning('id');
    return row.id;
  }

  async function insertCode(code: string, checkoutId: number | null): Promise<number> {
    const [row] = await deps
      .knex('product_codes')
      .insert({
        product_id: productId,
        code,
        status: checkoutId ? 'reserved' : 'available',
        checkout_id: checkoutId,
      })
      .returning('id');
    return row.id;
  }

  it('expires unpaid checkouts past their lifetime and releases the code keys they reserved', async () => {
    const due = await insertCheckout('created', ago(60_000));
    const dueInitiated = await insertCheckout('payment_initiated', ago(1_000));
    const fresh = await insertCheckout('created', ahead(HOUR));
    const paid = await insertCheckout('paid', ago(HOUR));
    const dueKey = await insertCode('KEY-1', due);
    const freshKey = await insertCode('KEY-2', fresh);
    const spareKey = await insertCode('KEY-3', null);

    expect(await expireCheckouts(deps.knex, undefined, deps)).to.deep.equal({
      expired: 2,
      releasedCodes: 1,
      releasedStock: 0,
      releasedCouponUses: 0,
    });

    const checkouts = await deps.knex('checkouts').select('id', 'status', 'reserved').orderBy('id');
    expect(checkouts).to.deep.equal([
      { id: due, status: 'expired', reserved: false },
      { id: dueInitiated, status: 'expired', reserved: false },
      { id: fresh, status: 'created', reserved: true },
      { id: paid, status: 'paid', reserved: true },
    ]);
    const codes = await deps.knex('product_codes').select('id', 'status', 'checkout_id').orderBy('id');
    expect(codes).to.deep.equal([
      { id: dueKey, status: 'available', checkout_id: null },
      { id: freshKey, status: 'reserved', checkout_id: fresh },
      { id: spareKey, status: 'available', checkout_id: null },
    ]);

    expect(await expireCheckouts(deps.knex, undefined, deps)).to.deep.equal({
      expired: 0,
      releasedCodes: 0,
      releasedStock: 0,
      releasedCouponUses: 0,
    });
  });

  it('expires active licenses whose expiry passed, leaving lifetime and other statuses alone', async () => {
    const insert = async (key: string, status: string, expiresAt: Date | null): Promise<number> => {
      const [row] = await deps
        .knex('licenses')
        .insert({ store_id: storeId, product_id: productId, key, status, expires_at: expiresAt })
        .returning('id');
      return row.id;
    };
    const expiredActive = await insert('T-0001', 'active', ago(1_000));
    const current = await insert('T-0002', 'active', ahead(HOUR));
    const lifetime = await insert('T-0003', 'active', null);
    const revoked = await insert('T-0004', 'revoked', ago(HOUR));

    expect(await expireLicenses(deps.knex)).to.deep.equal({ expired: 1 });
    expect(await expireLicenses(deps.knex)).to.deep.equal({ expired: 0 });

    const rows = await deps.knex('licenses').select('id', 'status').orderBy('id');
    expect(rows).to.deep.equal([
      { id: expiredActive, status: 'expired' },
      { id: current, status: 'active' },
      { id: lifetime, status: 'active' },
      { id: revoked, status: 'revoked' },
    ]);
  });

  it('deletes OTP sessions only once they have been expired for more than a day', async () => {
    const insert = async (expiresAt: Date): Promise<number> => {
      const [row] = await deps
        .knex('otp_sessions')
        .insert({
          store_id: storeId,
          channel: 'embed',
          token_hash: hex(),
          country_code: '966',
          phone: '500000001',
          e164: '966500000001',
          expires_at: expiresAt,
        })
        .returning('id');
      return row.id;
    };
    await insert(ago(25 * HOUR));
    const recentlyExpired = await insert(ago(23 * HOUR));
    const live = await insert(ahead(300_000));

    expect(await purgeOtpSessions(deps.knex)).to.deep.equal({ deleted: 1 });
    expect(await purgeOtpSessions(deps.knex)).to.deep.equal({ deleted: 0 });
    const left = await deps.knex('otp_sessions').pluck('id');
    expect(left.sort()).to.deep.equal([recentlyExpired, live].sort());
  });

  it('deletes idempotency records past their expiry', async () => {
    const insert = async (expiresAt: Date): Promise<number> => {
      const [row] = await deps
        .knex('idempotency_records')
        .insert({ store_id: storeId, scope: 'checkout', request_hash: hex(), expires_at: expiresAt })
        .returning('id');
      return row.id;
    };
    await insert(ago(1_000));
    await insert(ago(HOUR));
    const live = await insert(ahead(HOUR));

    expect(await purgeIdempotency(deps.knex)).to.deep.equal({ deleted: 2 });
    expect(await purgeIdempotency(deps.knex)).to.deep.equal({ deleted: 0 });
    expect(await deps.knex('idempotency_records').pluck('id')).to.deep.equal([live]);
  });

  it('runs a task as a maintenance job on a real worker and fails unknown tasks without retrying', async () => {
    const [row] = await deps
      .knex('licenses')
      .insert({
        store_id: storeId,
        product_id: productId,
        key: 'T-0100',
        status: 'active',
        expires_at: ago(1_000),
      })
      .returning('id');
    const pool = await WorkerPool.start(deps, { registry: processors, queues: ['maintenance'] });
    try {
      await enqueue(
        deps.queues,
        'maintenance',
        { task: 'expire-licenses', tick: new Date().toISOString() },
        { jobId: 'lic-run' },
      );
      await enqueue(
        deps.queues,
        'maintenance',
        { task: 'retired-task' as MaintenanceTask, tick: new Date().toISOString() },
        { jobId: 'sweep-run' },
      );

      const done = await waitFor('the license job to complete', async () => {
        const job = await deps.queues.maintenance.getJob('lic-run');
        // Read again once completed: the copy fetched while it ran has no return value yet.
        return (await job?.getState()) === 'completed'
          ? deps.queues.maintenance.getJob('lic-run')
          : undefined;
      });
      expect(done?.returnvalue).to.deep.equal({ expired: 1 });
      expect(await deps.knex('licenses').where({ id: row.id }).first('status')).to.deep.equal({
        status: 'expired',
      });

      const failed = await waitFor('the unknown task to fail', async () => {
        const job = await deps.queues.maintenance.getJob('sweep-run');
        return (await job?.getState()) === 'failed' ? job : undefined;
      });
      expect(failed?.attemptsMade).to.equal(1);
      expect(failed?.failedReason).to.equal('Unknown maintenance task "retired-task"');
    } finally {
      await pool.close(1_000);
    }
  });
});
