/**
 * Every value the platform keeps sealed at rest with its Cipher (shared/crypto.ts), in one list: what
 * `npm run secrets:rotate` re-seals under the current APP_SECRET and what a start probes to tell a wrong
 * APP_SECRET from a right one (docs/security.md, "Rotating APP_SECRET").
 *
 * A new sealed column is one line here. `key` is a unique column that names the row; `where` narrows a
 * shared table to the rows that hold sealed values; `jsonField` names the member of a jsonb column that
 * holds the sealed text; `probe` marks small tables a start may read one value of (never a large table
 * whose sealed column is mostly empty: finding its first value could scan it whole).
 */
export interface SealedColumn {
  readonly table: string;
  readonly column: string;
  readonly key: string;
  readonly where?: Readonly<Record<string, string>>;
  readonly jsonField?: string;
  readonly probe?: boolean;
}

/** The platform_settings row whose sealed value proves at start that APP_SECRET opens what is stored. */
export const SEAL_CHECK_SETTING = 'sealed_check';
export const SEAL_CHECK_TEXT = 'commerce-platform sealed data check';

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    table: 'platform_settings',
    column: 'value',
    key: 'key',
    where: { key: SEAL_CHECK_SETTING },
    probe: true,
  },
  {
    table: 'platform_settings',
    column: 'value',
    key: 'key',
    where: { key: 'license_signing_key' },
    probe: true,
  },
  { table: 'store_payment_methods', column: 'credentials_encrypted', key: 'id', probe: true },
  { table: 'merchant_webhook_endpoints', column: 'secret_encrypted', key: 'id', probe: true },
  { table: 'products', column: 'license_secret_encrypted', key: 'id' },
  { table: 'payments', column: 'saved_token_encrypted', key: 'id' },
  { table: 'subscriptions', column: 'payment_token_encrypted', key: 'id' },
  { table: 'otp_sessions', column: 'code_encrypted', key: 'id' },
  { table: 'emails', column: 'payload', key: 'id' },
  { table: 'merchant_users', column: 'totp_secret_encrypted', key: 'id' },
  { table: 'merchant_users', column: 'totp_pending_secret_encrypted', key: 'id' },
  { table: 'idempotency_records', column: 'response', key: 'id', jsonField: 'sealed' },
  // E-invoicing (docs/einvoicing.md): the store's signing keys and its CSIDs' API secrets.
  { table: 'einvoice_settings', column: 'private_key_encrypted', key: 'store_id' },
  { table: 'einvoice_settings', column: 'pending_private_key_encrypted', key: 'store_id' },
  { table: 'einvoice_settings', column: 'compliance_secret_encrypted', key: 'store_id' },
  { table: 'einvoice_settings', column: 'csid_secret_encrypted', key: 'store_id' },
];

/** How a row of `c` is named in progress lines: `table.column` (and the setting's key for platform_settings). */
export function sealedColumnName(c: SealedColumn): string {
  const where = c.where ? Object.values(c.where).join(',') : '';
  return `${c.table}.${c.column}${c.jsonField ? `.${c.jsonField}` : ''}${where ? `[${where}]` : ''}`;
}
