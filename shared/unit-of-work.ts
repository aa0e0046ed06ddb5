import type { Knex } from 'knex';
import { afterCommit, inTransaction } from './after-commit';
import { bumpSafely, type CacheDeps, type CacheLogger } from './cache/versioned';
import { emitEvent } from './events/emit';
import type { EventConfig } from './events/subscribers';
import type { PlatformEvent } from './events/types';
import { dispatchStaged, type OutboxDeps, type StagedJob } from './queues/outbox';

/**
 * One unit of work: a transaction and what it sets off outside Postgres once it has committed, collected
 * while it runs and done once, in the order it was asked for:
 * - `bump`: hot-read cache counters (shared/cache/versioned.ts);
 * - `emit`: an event (shared/events/types.ts), whose subscribers (shared/events/subscribers.ts: merchant
 *   webhooks, buyer messages, jobs) write their rows and outbox jobs in this transaction at once;
 * - `stage`: queue jobs written to the outbox with the change (shared/queues/outbox.ts) that no event
 *   stands for (an OTP code, a payment's provider session, a new order's fulfilment).
 * Nothing of it happens when the transaction rolls back. A writer that runs inside another's unit takes
 * that unit (`within`) instead of opening its own, so its effects wait for the outer commit.
 */
export interface UnitOfWork {
  readonly trx: Knex.Transaction;
  bump(counters: readonly string[]): void;
  stage(...jobs: StagedJob[]): void;
  emit(event: PlatformEvent): Promise<void>;
}

export type UnitOfWorkDeps = OutboxDeps & CacheDeps & { logger: CacheLogger; config: EventConfig };

/** What a writer needs to open a unit of work (`deps.tx`, built in createDeps): pass `deps` down. */
export interface TxDeps {
  tx<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T>;
}

/** Where a writer runs: a unit of its own (`deps`), or the caller's (`{ uow }`), whose commit its effects wait for. */
export type UnitOrDeps = TxDeps | { uow: UnitOfWork };

/** Runs `work` in the caller's unit of work when given one, else in a new one of `deps.tx`. */
export function inUnit<T>(db: UnitOrDeps, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  return 'uow' in db ? work(db.uow) : db.tx(work);
}

/** The part of a unit of work that cache invalidation uses (catalogue/cache.ts, payment-records/status.ts...). */
export type Bumps = Pick<UnitOfWork, 'bump'>;

/** Runs `work` in one transaction of `deps.knex`, then its effects (after the outermost commit). */
export async function unitOfWork<T>(deps: UnitOfWorkDeps, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  const effects: (() => Promise<void>)[] = [];
  const result = await deps.knex.transaction(async (trx) => {
    const stage = (...jobs: StagedJob[]): void => {
      if (jobs.length > 0) effects.push(() => dispatchStaged(deps, jobs));
    };
    const uow: UnitOfWork = {
      trx,
      bump: (counters) => {
        if (counters.length > 0) effects.push(() => bumpSafely(deps, counters));
      },
      stage,
      emit: (event) => emitEvent(trx, deps.config, stage, event),
    };
    return work(uow);
  });
  const run = async (): Promise<void> => {
    for (const effect of effects) {
      try {
        await effect();
      } catch (err) {
        // The change has committed: what failed here is retried by its own path (the outbox relay for
        // jobs, the TTL for caches).
        deps.logger.warn({ err: (err as Error).message }, 'after-commit effect failed');
      }
    }
  };
  // deps.knex may itself be a transaction (a caller's): then the effects wait for its commit.
  const done = afterCommit(deps.knex, run);
  if (!inTransaction(deps.knex)) await done;
  return result;
}
