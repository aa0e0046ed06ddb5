import { BaseModel } from './base';

export type RenewalStatus = 'pending' | 'charging' | 'paid' | 'failed' | 'link_sent';

/**
 * One period of one subscription (db/migrations/20261124000600_subscription_renewals.ts): unique on
 * (subscription_id, period_start), so a period is charged through this row only.
 */
export class SubscriptionRenewal extends BaseModel {
  static override tableName = 'subscription_renewals';
  static override hasUpdatedAt = true;
  id!: number;
  subscription_id!: number;
  store_id!: number;
  period_start!: Date;
  plan_id!: number;
  /** The unit price this renewal charges, fixed when it is first decided (null: rows from before it). */
  price_minor!: number | null;
  /** It took the subscription's waiting terms (a plan change or a new price). */
  new_terms!: boolean;
  status!: RenewalStatus;
  attempts!: number;
  next_attempt_at!: Date | null;
  checkout_id!: number | null;
  payment_id!: number | null;
  order_id!: number | null;
  last_error!: string | null;
  created_at!: Date;
  updated_at!: Date;
}
