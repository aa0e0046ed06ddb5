import type { Deps } from '../deps';
import type { JobPayloads, QueueName } from './index';

/** What a handler knows of its job besides the payload. */
export interface JobRun {
  /** BullMQ's job id, for the log. */
  readonly id: string | undefined;
  /** True on the job's last allowed attempt: a handler that records a final failure does it now. */
  readonly finalAttempt: boolean;
}

/** One kind of job: read the payload's ids, call the domain's service, answer what the log shows. */
export type JobHandler<P> = (deps: Deps, data: P, run: JobRun) => Promise<unknown>;

/** The kinds of a queue whose payloads carry `kind`; never for a queue of one kind. */
export type KindOf<N extends QueueName> = JobPayloads[N] extends infer P
  ? P extends { kind: infer K extends string }
    ? K
    : never
  : never;

/** A queue's handlers: one per kind, or `job` for a queue whose payload has no kind. */
export type QueueHandlers<N extends QueueName> = [KindOf<N>] extends [never]
  ? { readonly job: JobHandler<JobPayloads[N]> }
  : { readonly [K in KindOf<N>]?: JobHandler<Extract<JobPayloads[N], { kind: K }>> };

/**
 * The queue work of one domain, declared in its folder's `jobs.ts`: for each queue it serves, the handler
 * of each job kind it owns. A worker's processor only looks the handler up (`handlerFor`), so "which
 * service does this job run" is answered in the domain's folder.
 */
export type DomainJobs = { readonly [N in QueueName]?: QueueHandlers<N> };

/** The key of a payload's handler: its `kind`, or `job` when the queue has none. */
export function kindOf(data: unknown): string {
  const kind = (data as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' ? kind : 'job';
}

/**
 * The one handler of a job among the domains' tables, or null when none declares it (a job of an unknown
 * kind; the processor fails it for good).
 */
export function handlerFor<N extends QueueName>(
  tables: readonly DomainJobs[],
  queue: N,
  data: JobPayloads[N],
): JobHandler<JobPayloads[N]> | null {
  const kind = kindOf(data);
  for (const table of tables) {
    const handlers = table[queue] as Record<string, JobHandler<JobPayloads[N]> | undefined> | undefined;
    const handler = handlers && Object.hasOwn(handlers, kind) ? handlers[kind] : undefined;
    if (handler) return handler;
  }
  return null;
}
