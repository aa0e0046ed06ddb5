import { DomainError, ErrorCode } from '../../errors';

export type LicenseErrorCode = Extract<
  ErrorCode,
  | 'LICENSE_NOT_FOUND'
  | 'LICENSE_EXPIRED'
  | 'LICENSE_SUSPENDED'
  | 'LICENSE_REVOKED'
  | 'LICENSE_NOT_ACTIVE'
  | 'HWID_REQUIRED'
  | 'ACTIVATION_LIMIT_REACHED'
  | 'RESET_LIMIT_REACHED'
  | 'CERTIFICATE_VOID'
>;

/** The answers of verify that are not a result; the License envelope shows `code` as `error_code`. */
export const LICENSE_MESSAGES: Record<LicenseErrorCode, string> = {
  // The same words for an unknown key and a key of another product: the answer must not tell them apart.
  LICENSE_NOT_FOUND: 'License not found',
  LICENSE_EXPIRED: 'License has expired',
  LICENSE_SUSPENDED: 'License is suspended',
  LICENSE_REVOKED: 'License has been revoked',
  LICENSE_NOT_ACTIVE: 'License is not active yet',
  HWID_REQUIRED: 'A hardware id (hwid) is required for this license',
  ACTIVATION_LIMIT_REACHED: 'Activation limit reached for this license',
  RESET_LIMIT_REACHED: 'No activation resets left for now',
  CERTIFICATE_VOID: 'This certificate no longer holds a seat: drop it',
};

export class LicenseError extends DomainError {
  constructor(code: LicenseErrorCode, extra: Record<string, unknown> = {}) {
    super(code, LICENSE_MESSAGES[code], extra);
  }
}
