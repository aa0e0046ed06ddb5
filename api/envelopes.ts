import type { ErrorCode, FieldErrors } from '../shared/errors';
import { PUBLIC_ERROR_CODES } from '../shared/errors';
import type { PublicErrorCode } from '../shared/error-codes';
import type { InterfaceName } from './interfaces';

/** What the error handler knows about a failure once it has been mapped to a status. */
export interface ErrorView {
  status: number;
  code: ErrorCode;
  message: string;
  extra: Record<string, unknown>;
  errors?: FieldErrors;
  /** The stable lower_snake_case `error_code` (shared/error-codes.ts, docs/errors.md). */
  errorCode: PublicErrorCode;
  /** Values the translated message needs (an amount, seconds). */
  params?: Record<string, string | number>;
}

export interface Envelope {
  ok(data: unknown, message?: string | null): unknown;
  error(e: ErrorView): unknown;
}

const LICENSE_SPECIFIC_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'LICENSE_NOT_FOUND',
  'LICENSE_EXPIRED',
  'LICENSE_SUSPENDED',
  'LICENSE_REVOKED',
  'LICENSE_NOT_ACTIVE',
  'HWID_REQUIRED',
  'ACTIVATION_LIMIT_REACHED',
  'RESET_LIMIT_REACHED',
  'CERTIFICATE_VOID',
]);

const withoutErrors = (extra: Record<string, unknown>): Record<string, unknown> => {
  const { errors: _errors, ...rest } = extra;
  return rest;
};

/** Spec, Errors: "Merchant, Storefront and License APIs 429: body with message only". */
const messageOnlyOn429 = (e: ErrorView): { message: string } | null =>
  e.status === 429 ? { message: e.message } : null;

/** The spec's Embed codes where it names one, else the stable code of docs/errors.md. */
export const embedErrorCode = (e: ErrorView): string =>
  e.code === 'RATE_LIMITED' ? 'RATE_LIMIT_EXCEEDED' : PUBLIC_ERROR_CODES.has(e.code) ? e.code : e.errorCode;

const embed: Envelope = {
  ok: (data) => ({ success: true, data }),
  error: (e) => {
    const body: Record<string, unknown> = { success: false, message: e.message };
    body.error_code = embedErrorCode(e);
    Object.assign(body, withoutErrors(e.extra));
    if (e.errors) body.errors = e.errors;
    return body;
  },
};

const storefront: Envelope = {
  ok: (data, message = null) => ({ success: true, data, message }),
  error: (e) =>
    messageOnlyOn429(e) ?? {
      success: false,
      data: null,
      message: e.message,
      error_code: embedErrorCode(e),
      ...(e.errors ? { errors: e.errors } : {}),
    },
};

const analytics: Envelope = {
  ok: () => ({ status: 'ok' }),
  error: (e) => ({
    status: 'error',
    message: e.message,
    error_code: e.errorCode,
    ...(e.errors ? { errors: e.errors } : {}),
  }),
};

const merchant: Envelope = {
  ok: (data, message = null) => ({
    message,
    data,
    api: 'merchant',
    timestamp: Math.floor(Date.now() / 1000),
  }),
  error: (e) =>
    messageOnlyOn429(e) ?? {
      message: e.message,
      data: null,
      api: 'merchant',
      timestamp: Math.floor(Date.now() / 1000),
      error: true,
      error_code: e.errorCode,
      ...(e.errors ? { errors: e.errors } : {}),
    },
};

/** License errors carry `error_code` like the Embed envelope; the platform's general codes get stable names. */
const LICENSE_GENERAL_CODES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID: 'INVALID_REQUEST',
  NOT_FOUND: 'NOT_FOUND',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  UNAVAILABLE: 'SERVER_ERROR',
};

const license: Envelope = {
  ok: (data) => ({ success: true, data }),
  error: (e) =>
    messageOnlyOn429(e) ?? {
      success: false,
      message: e.message,
      error_code: LICENSE_SPECIFIC_CODES.has(e.code)
        ? e.code
        : (LICENSE_GENERAL_CODES[e.code] ?? 'REQUEST_FAILED'),
      ...(LICENSE_SPECIFIC_CODES.has(e.code) ? withoutErrors(e.extra) : {}),
      ...(e.errors ? { errors: e.errors } : {}),
    },
};

/** A 429 tells the game-server resource when to come back, as every success does (`next_check`). */
const fivem: Envelope = {
  ok: (data) => ({ success: true, data }),
  error: (e) => ({
    success: false,
    message: e.message,
    ...(e.errors ? { errors: e.errors } : {}),
    ...(e.status === 429 && Number.isFinite(Number(e.extra.retry_after))
      ? { next_check: Number(e.extra.retry_after) }
      : {}),
  }),
};

const platform: Envelope = {
  ok: (data) => data,
  error: (e) => ({ error: { code: e.code, message: e.message, ...(e.errors ? { errors: e.errors } : {}) } }),
};

export const envelopes: Record<InterfaceName, Envelope> = {
  embed,
  storefront,
  analytics,
  merchant,
  license,
  fivem,
  platform,
};
