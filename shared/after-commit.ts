import type { Knex } from 'knex';

type TransactionLike = {
  isTransaction?: boolean;
  executionPromise?: Promise<unknown>;
  parentTransaction?: TransactionLike;
};

/** The outermost transaction `knex` belongs to, or null when `knex` is not a transaction. */
function outermost(knex: Knex | Knex.Transaction): TransactionLike | null {
  let trx = knex as unknown as TransactionLike;
  while (trx.parentTransaction) trx = trx.parentTransaction;
  return trx.isTransaction && trx.executionPromise ? trx : null;
}

/** True when `knex` is a transaction (or a savepoint inside one): effects must wait for its commit. */
export function inTransaction(knex: Knex | Knex.Transaction): boolean {
  return outermost(knex) !== null;
}

/**
 * The one after-commit path of the platform: what a change sets off outside Postgres (cache counter
 * bumps, queue jobs staged in the outbox) runs once the OUTERMOST transaction that `knex` belongs to has
 * committed, and not at all when it rolls back; at once when `knex` is not a transaction. Releasing a
 * savepoint commits nothing, hence the walk up to the outermost transaction.
 *
 * In a transaction the returned promise settles after the commit: a caller inside the transaction must
 * not await it (it would wait for its own commit). The effect is started from the commit's own
 * continuation, before the code awaiting the transaction resumes, so it is on its way before the writer
 * answers anyone. `effect` must not throw (log instead): nobody may be there to catch it.
 */
export function afterCommit(knex: Knex | Knex.Transaction, effect: () => Promise<void>): Promise<void> {
  const trx = outermost(knex);
  if (!trx) return effect();
  return trx.executionPromise!.then(effect, () => undefined);
}
