import type { Job } from 'bullmq';
import type { Deps } from '../../shared/deps';
import type { JobPayloads, QueueName } from '../../shared/queues';

export type JobOf<N extends QueueName> = Job<JobPayloads[N], unknown, string>;

/**
 * How one queue's jobs are handled. `process` reads job.data and calls a shared service; it throws
 * UnrecoverableError for a permanent failure (the job then fails at once and waits for an operator) and
 * any other error to be retried with the queue's back-off.
 */
export interface QueueProcessor<N extends QueueName> {
  /** Jobs of this queue one worker process runs at once. */
  readonly concurrency: number;
  process(job: JobOf<N>, deps: Deps): Promise<unknown>;
  /** Called when the queue has no job left waiting (BullMQ's `drained`): a batching processor writes now. */
  drained?(deps: Deps): void;
}

/** Queues with a processor; a worker process serves these (or the subset WORKER_QUEUES names). */
export type ProcessorRegistry = { readonly [N in QueueName]?: QueueProcessor<N> };
