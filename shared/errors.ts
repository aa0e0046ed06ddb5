/**
 * Domain errors name the problem, not the HTTP status. The API's error handler maps `code` to a status
 * (api/middleware/error-handler.ts) and the interface's envelope formats it.
 */
import type { PublicErrorCode } from './error-codes';

export type ErrorCode =
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'INVALID'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'ORIGIN_NOT_ALLOWED'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNAVAILABLE'
  // Embed API error codes, exposed to clients as `error_code` (spec: Embed error codes).
  | 'PHONE_BLOCKED'
  | 'COOLDOWN_ACTIVE'
  | 'SESSION_EXPIRED'
  | 'INVALID_CODE'
  | 'MAX_ATTEMPTS_REACHED'
  // License Verification API error codes, exposed as `error_code` (docs/license.md).
  | 'LICENSE_NOT_FOUND'
  | 'LICENSE_EXPIRED'
  | 'LICENSE_SUSPENDED'
  | 'LICENSE_REVOKED'
  | 'LICENSE_NOT_ACTIVE'
  | 'HWID_REQUIRED'
  | 'ACTIVATION_LIMIT_REACHED'
  | 'RESET_LIMIT_REACHED'
  | 'CERTIFICATE_VOID';

/** Codes that the Embed envelope shows to clients as `error_code`. */
export const PUBLIC_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'PHONE_BLOCKED',
  'COOLDOWN_ACTIVE',
  'SESSION_EXPIRED',
  'INVALID_CODE',
  'MAX_ATTEMPTS_REACHED',
]);

export type FieldErrors = Record<string, string[]>;

/**
 * The messages of `key`, made empty on first use. Keys come from clients (body fields, query names), so
 * they may be `valueOf`, `constructor` or `__proto__`: only an own property counts, and it is defined
 * rather than assigned, so no key reads or replaces the object's prototype (a `valueOf` field once made
 * `errors[key] ??= []` return Object.prototype.valueOf, and the 422 a 500).
 */
export function messagesOf(errors: FieldErrors, key: string): string[] {
  if (Object.hasOwn(errors, key)) return errors[key]!;
  const messages: string[] = [];
  Object.defineProperty(errors, key, {
    value: messages,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return messages;
}

export class DomainError extends Error {
  /**
   * The stable `error_code` clients branch on (shared/error-codes.ts, docs/errors.md); null: the default
   * of `code`. `params` fill the translated message (api/middleware/error-handler.ts).
   */
  errorCode: PublicErrorCode | null = null;
  params: Record<string, string | number> = {};

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra fields the client may read (retry_after, remaining_attempts, ...). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
    Object.setPrototypeOf(this, new.target.prototype);
  }

  /** Names the failure for clients: `throw new NotFoundError(MSG).withCode('product_not_found')`. */
  withCode(errorCode: PublicErrorCode, params: Record<string, string | number> = {}): this {
    this.errorCode = errorCode;
    this.params = params;
    return this;
  }
}

export class NotFoundError extends DomainError {
  constructor(message = 'Not found') {
    super('NOT_FOUND', message);
  }
}

export class ValidationError extends DomainError {
  constructor(
    readonly errors: FieldErrors,
    message = 'Invalid request',
  ) {
    super('VALIDATION_FAILED', message, { errors });
  }

  static field(field: string, message: string, summary = 'Invalid request'): ValidationError {
    return new ValidationError({ [field]: [message] }, summary);
  }
}

/** A request that is well-formed but not allowed in the current state (400). */
export class InvalidError extends DomainError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super('INVALID', message, extra);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(message = 'Unauthenticated') {
    super('UNAUTHENTICATED', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Forbidden') {
    super('FORBIDDEN', message);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}

export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'Too many requests. Please try again later.',
  ) {
    super('RATE_LIMITED', message, { retry_after: retryAfterSeconds });
  }
}

/** Raised by services with one of the Embed API's public error codes. */
export class CodedError extends DomainError {}
