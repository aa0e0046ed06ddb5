import { BaseModel } from './base';

/** The merchant dashboard's people, their roles in stores and their browser sessions. */

export type StoreRole = 'owner' | 'manager' | 'support';
export const STORE_ROLES: readonly StoreRole[] = ['owner', 'manager', 'support'];

export class MerchantUser extends BaseModel {
  static override tableName = 'merchant_users';
  static override hasUpdatedAt = true;
  id!: number;
  name!: string;
  country_code!: string;
  phone!: string;
  e164!: string;
  created_at!: Date;
  updated_at!: Date;
}

export class StoreMember extends BaseModel {
  static override tableName = 'store_members';
  id!: number;
  store_id!: number;
  merchant_user_id!: number;
  role!: StoreRole;
  /** Permissions granted on top of the role (shared/services/staff/roles.ts, GRANTABLE). */
  grants!: string[];
  invited_by!: number | null;
  created_at!: Date;
}

export class DashboardSession extends BaseModel {
  static override tableName = 'dashboard_sessions';
  id!: number;
  merchant_user_id!: number;
  store_id!: number | null;
  token_hash!: string;
  user_agent!: string | null;
  created_at!: Date;
  last_seen_at!: Date;
  expires_at!: Date;
  revoked_at!: Date | null;
}
