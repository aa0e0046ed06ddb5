import type { JobsOptions } from 'bullmq';
import type { Knex } from 'knex';
import { enqueue, JobPayloads, QueueName, Queues } from './index';

/**
 * Jobs that a change calls for, written in the change's own transaction (the transactional outbox):
 *
 * - `stageJob(trx, ...)` inserts the job into `job_outbox` beside the change; rolled back together.
 * - After the commit, `dispatchStaged` hands the staged jobs to BullMQ and deletes their rows. A failure
 *   there (Redis frozen or down) is logged and does NOT fail the request: the change is made, and its
 *   rows are still there for the relay.
 * - `relayOutbox` (the `relay-outbox` maintenance task, every minute) hands over the rows older than a
 *   few seconds that no writer dispatched, once Redis answers again.
 *
 * Every staged job has a deterministic id, so a job both dispatched (late: an enqueue that timed out for
 * us but reached Redis) and relayed is added once. Thus a refused request (rolled back) starts no job, and
 * an accepted one starts its job exactly once, whenever Redis can take it.
 */
export interface StagedJob {
  readonly outboxId: number;
  readonly queue: QueueName;
  readonly data: unknown;
  readonly opts: JobsOptions & { jobId: string };
}

export interface OutboxDeps {
  knex: Knex;
  queues: Queues;
  logger: { warn(obj: object, msg: string): void };
}

/** Writes the job into the outbox within `trx`; hand the result to `dispatchStaged` after commit. */
export async function stageJob<N extends QueueName>(
  trx: Knex.Transaction,
  queue: N,
  data: JobPayloads[N],
  opts: JobsOptions & { jobId: string },
): Promise<StagedJob> {
  const [row] = await trx('job_outbox')
    .insert({ queue, job_id: opts.jobId, data: JSON.stringify(data), opts: JSON.stringify(opts) })
    .returning('id');
  return { outboxId: Number((row as { id: number }).id), queue, data, opts };
}

async function handOver(deps: { queues: Queues }, jobs: readonly StagedJob[]): Promise<number[]> {
  const done: number[] = [];
  for (const job of jobs) {
    // The outbox's own hand-over of committed rows: no transaction exists to stage them in.
    await enqueue(deps.queues, job.queue, job.data as JobPayloads[typeof job.queue], job.opts);
    done.push(job.outboxId);
  }
  return done;
}

/**
 * After the commit: enqueues the staged jobs and deletes their rows. Never throws: what could not be
 * handed over stays in the outbox for the relay. Awaited by the request, so that a job is in its queue by
 * the time the answer leaves whenever Redis answers (the breaker bounds the wait when it does not).
 */
export async function dispatchStaged(deps: OutboxDeps, jobs: readonly StagedJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const done: number[] = [];
  try {
    done.push(...(await handOver(deps, jobs)));
  } catch (err) {
    deps.logger.warn(
      { error: (err as Error).message, jobs: jobs.map((j) => j.opts.jobId) },
      'jobs not enqueued yet; the outbox relay will enqueue them',
    );
  }
  if (done.length === 0) return;
  await deps
    .knex('job_outbox')
    .whereIn('id', done)
    .delete()
    .catch((err: Error) =>
      deps.logger.warn(
        { error: err.message },
        'outbox rows not deleted; the relay enqueues them again (harmless)',
      ),
    );
}

/** Rows younger than this are left to the writer that staged them (it dispatches right after commit). */
export const RELAY_GRACE_MS = 10_000;

/**
 * Hands over the outbox rows that no writer dispatched, oldest first, in batches; rows locked by another
 * relay are skipped. Stops at the first enqueue failure (Redis still out): the rest waits for the next run.
 */
export async function relayOutbox(
  knex: Knex,
  now: Date = new Date(),
  deps: { queues: Queues },
  batch = 200,
): Promise<{ relayed: number; purgedAbandoned: number }> {
  let relayed = 0;
  for (;;) {
    const count = await knex.transaction(async (trx) => {
      const rows: { id: string; queue: QueueName; job_id: string; data: unknown; opts: JobsOptions }[] =
        await trx('job_outbox')
          .where('created_at', '<', new Date(now.getTime() - RELAY_GRACE_MS))
          .orderBy('id')
          .limit(batch)
          .forUpdate()
          .skipLocked()
          .select('id', 'queue', 'job_id', 'data', 'opts');
      if (rows.length === 0) return 0;
      const jobs = rows.map((r) => ({
        outboxId: Number(r.id),
        queue: r.queue,
        data: r.data,
        opts: { ...r.opts, jobId: r.job_id },
      }));
      const done = await handOver(deps, jobs);
      await trx('job_outbox').whereIn('id', done).delete();
      return done.length;
    });
    relayed += count;
    if (count < batch) break;
  }
  const purged = await knex('abandoned_jobs')
    .where('created_at', '<', new Date(now.getTime() - ABANDONED_RETENTION_MS))
    .delete();
  return { relayed, purgedAbandoned: purged };
}

/**
 * For a job without a row of its own to stage (analytics: the request writes nothing to Postgres): the
 * request's enqueue failed, so the request is answered as refused, yet the command may still reach Redis
 * and run. Recording its Redis job id lets the job see, when it runs, that its request was not kept.
 * Never throws (Postgres may be out too): the caller is already failing.
 */
export async function abandonJob(
  deps: { knex: Knex; logger?: { warn(obj: object, msg: string): void } },
  queue: QueueName,
  redisJobId: string,
): Promise<void> {
  await deps
    .knex('abandoned_jobs')
    .insert({ job_id: redisJobId, queue })
    .onConflict('job_id')
    .ignore()
    .catch((err: Error) =>
      deps.logger?.warn({ error: err.message, queue, jobId: redisJobId }, 'could not mark a job abandoned'),
    );
}

/** How long an abandoned job's id is kept: far longer than any outage its job could wait out. */
export const ABANDONED_RETENTION_MS = 7 * 86_400_000;
