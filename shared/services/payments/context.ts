import type { Knex } from 'knex';
import type { TxDeps } from '../../unit-of-work';
import type { Order } from '../../../db/models';
import type { Config } from '../../config';
import type { Cipher } from '../../crypto';
import type { Logger } from '../../logger';
import type { PaymentProviders } from '../../providers/types';
import type { Queues } from '../../queues';
import type { ChangeStatusDeps } from '../orders/change-status';

/**
 * Test seams of reconciliation, passed through the constructor of the payments processor: a test injects
 * a failure at a precise point (e.g. right after the order insert) to show that a retry completes the
 * order without duplicates. Production passes none.
 */
export interface ReconcileHooks {
  /** Runs inside the reconciliation transaction, after the order was created or found. */
  afterOrder?(order: Order, trx: Knex.Transaction): Promise<void>;
}

/**
 * What the worker side of payments needs: the process's wiring plus the provider adapters; a confirmed
 * payment moves its order through the order lifecycle (shared/services/orders/change-status.ts).
 */
export interface PaymentsContext extends TxDeps, ChangeStatusDeps {
  knex: Knex;
  queues: Queues;
  cipher: Cipher;
  logger: Logger;
  config: Pick<Config, 'publicBaseUrl'> & ChangeStatusDeps['config'];
  appSecret: string;
  providers: PaymentProviders;
  hooks?: ReconcileHooks;
}
