import { expect } from 'chai';
import { afterCommit } from '../../../shared/after-commit';
import type { Deps } from '../../../shared/deps';
import { dispatchStaged, relayOutbox, stageJob } from '../../../shared/queues/outbox';
import { inUnit } from '../../../shared/unit-of-work';
import { isolatedDeps } from '../../helpers/deps';

/**
 * The one after-commit path: effects (jobs staged in the outbox, cache bumps) run after the OUTERMOST
 * commit, never on rollback; the relay hands over what no writer dispatched, once.
 */
describe('after commit: outbox jobs and effects', () => {
  let deps: Deps;
  before(async () => {
    deps = await isolatedDeps();
  });

  const outboxRows = async (jobId: string): Promise<number> =>
    (await deps.knex('job_outbox').where({ job_id: jobId })).length;
  const job = (jobId: string) => deps.queues.fulfilment.getJob(jobId);

  it('runs an effect after the outermost commit, not when a savepoint is released, and never on rollback', async () => {
    const seen: string[] = [];
    await deps.knex.transaction(async (outer) => {
      await outer.transaction(async (inner) => {
        void afterCommit(inner, async () => void seen.push('nested'));
      });
      expect(seen, 'the savepoint released: nothing yet').to.deep.equal([]);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).to.deep.equal(['nested']);
    await deps.knex
      .transaction(async (trx) => {
        void afterCommit(trx, async () => void seen.push('rolled back'));
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).to.deep.equal(['nested']);
  });

  it('a job staged in a rolled-back transaction is neither kept nor enqueued', async () => {
    await deps
      .tx(async (uow) => {
        uow.stage(
          await stageJob(uow.trx, 'fulfilment', { orderId: 990001, event: 'paid' }, { jobId: 'ob-rb' }),
        );
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await outboxRows('ob-rb')).to.equal(0);
    expect(await job('ob-rb')).to.equal(undefined);
  });

  it('a job staged by a writer in the caller’s unit of work is enqueued once that commits, and its row removed', async () => {
    await deps.tx(async (outer) => {
      await inUnit({ uow: outer }, async (uow) => {
        uow.stage(
          await stageJob(uow.trx, 'fulfilment', { orderId: 990002, event: 'paid' }, { jobId: 'ob-c' }),
        );
      });
      expect(await job('ob-c'), 'not before the outer commit').to.equal(undefined);
    });
    for (let i = 0; i < 50 && (await outboxRows('ob-c')) > 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await outboxRows('ob-c')).to.equal(0);
    expect((await job('ob-c'))?.data).to.deep.equal({ orderId: 990002, event: 'paid' });
  });

  it('the relay hands over rows no writer dispatched, once, and leaves young rows to their writer', async () => {
    const staged = await deps.knex.transaction((trx) =>
      stageJob(trx, 'fulfilment', { orderId: 990003, event: 'paid' }, { jobId: 'ob-relay' }),
    );
    expect((await relayOutbox(deps.knex, new Date(), deps)).relayed, 'too young').to.equal(0);
    const later = new Date(Date.now() + 60_000);
    expect((await relayOutbox(deps.knex, later, deps)).relayed).to.equal(1);
    expect(await outboxRows('ob-relay')).to.equal(0);
    // A writer that dispatches late after the relay adds nothing: same job id.
    await dispatchStaged(deps, [staged]);
    const jobs = (await deps.queues.fulfilment.getJobs(['waiting', 'delayed'])).filter(
      (j) => j.data.orderId === 990003,
    );
    expect(jobs).to.have.length(1);
  });
});
