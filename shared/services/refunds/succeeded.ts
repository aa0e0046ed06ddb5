import type { Knex } from 'knex';
import type { Refund } from '../../../db/models';
import { creditNoteForRefund } from '../invoices/credit-notes';

/**
 * What else happens when a refund has succeeded: the money is back with the buyer (the provider said so)
 * or the merchant recorded a manual refund. The tax credit note for a refund is issued here.
 *
 * A hook runs inside the transaction that marks the refund succeeded, with the refund row as it now
 * is, so what it writes (a credit note and its number) exists exactly once per refund: both commit or
 * neither, however often the refund job runs. A hook must not call the network; work that must leave
 * the process is recorded here and sent after the commit, like the merchant webhook events.
 */
export type RefundSucceededHook = (trx: Knex.Transaction, refund: Refund, now: Date) => Promise<void>;

export const REFUND_SUCCEEDED_HOOKS: readonly RefundSucceededHook[] = [creditNoteForRefund];
