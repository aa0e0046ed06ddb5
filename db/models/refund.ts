import { BaseModel } from './base';

/**
 * A refund's own state machine (shared/services/refunds/CONTEXT.md): requested -> sent -> succeeded or
 * failed; requested may end at once (a manual refund: succeeded; a provider without a refund API: failed).
 */
export type RefundStatus = 'requested' | 'sent' | 'succeeded' | 'failed';
/** The states still waiting for the provider's answer (the Merchant API's `status: pending`). */
export const OPEN_REFUND_STATES: readonly RefundStatus[] = ['requested', 'sent'];
export type RefundKind = 'provider' | 'manual';

/** Money going back for an order (db/migrations/20261124000500_refunds.ts; shared/services/refunds). */
export class Refund extends BaseModel {
  static override tableName = 'refunds';
  static override hasUpdatedAt = true;
  id!: number;
  store_id!: number;
  order_id!: number;
  payment_id!: number;
  amount_minor!: number;
  currency!: string;
  kind!: RefundKind;
  provider!: string;
  status!: RefundStatus;
  reason!: string | null;
  note!: string | null;
  withdraw_goods!: boolean;
  idempotency_key!: string;
  request_key!: string | null;
  provider_refund_id!: string | null;
  provider_status!: string | null;
  failure_reason!: string | null;
  attempts!: number;
  merchant_token_id!: number | null;
  succeeded_at!: Date | null;
  failed_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}
