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

/**
 * The one error object (docs/errors.md, "One error object"): what an interface whose error shape the spec
 * leaves open answers (the platform routes, analytics collection, the FiveM API). The interfaces whose
 * envelopes the spec fixes (Embed, Storefront, Merchant, License) keep them, with `error_code`, `message`
 * and `errors` under the same names.
 */
export interface ErrorObject {
  error_code: PublicErrorCode;
  message: string;
  errors?: FieldErrors;
  /** Where docs/errors.md describes the code (served at /docs/errors.md). */
  doc_url: string;
}

/** The page, and the code as its anchor, that explains a failure (the code is a row of that page). */
export const docUrlOf = (code: string): string => `/docs/errors.md#${code.toLowerCase()}`;

const errorObject = (e: ErrorView): ErrorObject => ({
  error_code: e.errorCode,
  message: e.message,
  ...(e.errors ? { errors: e.errors } : {}),
  doc_url: docUrlOf(e.errorCode),
});

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

/** The spec gives analytics errors as "status codes only": the body is the one error object, 429 too. */
const analytics: Envelope = {
  ok: () => ({ status: 'ok' }),
  error: errorObject,
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

/**
 * License errors carry `error_code` like the Embed envelope: the License API's own codes, and stable
 * upper-case names for the platform's general failures (docs/license.md, "Errors").
 */
const LICENSE_GENERAL_CODES = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID: 'INVALID_REQUEST',
  NOT_FOUND: 'NOT_FOUND',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  UNAVAILABLE: 'SERVER_ERROR',
} as const satisfies Partial<Record<ErrorCode, string>>;

/** A License failure of no code above (an unauthenticated or forbidden request, a conflict). */
const LICENSE_FALLBACK_CODE = 'REQUEST_FAILED';

const licenseGeneralCode = (code: ErrorCode): string =>
  Object.hasOwn(LICENSE_GENERAL_CODES, code)
    ? LICENSE_GENERAL_CODES[code as keyof typeof LICENSE_GENERAL_CODES]
    : LICENSE_FALLBACK_CODE;

const license: Envelope = {
  ok: (data) => ({ success: true, data }),
  error: (e) =>
    messageOnlyOn429(e) ?? {
      success: false,
      message: e.message,
      error_code: LICENSE_SPECIFIC_CODES.has(e.code) ? e.code : licenseGeneralCode(e.code),
      ...(LICENSE_SPECIFIC_CODES.has(e.code) ? withoutErrors(e.extra) : {}),
      ...(e.errors ? { errors: e.errors } : {}),
    },
};

/**
 * The one error object after `success: false` (the game-server resource branches on `success`); a 429
 * tells the resource when to come back, as every success does (`next_check`).
 */
const fivem: Envelope = {
  ok: (data) => ({ success: true, data }),
  error: (e) => ({
    success: false,
    ...errorObject(e),
    ...(e.status === 429 && Number.isFinite(Number(e.extra.retry_after))
      ? { next_check: Number(e.extra.retry_after) }
      : {}),
  }),
};

/** The platform routes (health, docs, dashboard, payment pages, webhooks, development): the one error object. */
const platform: Envelope = {
  ok: (data) => data,
  error: errorObject,
};

/** Every `error_code` the Embed and Storefront envelopes can send that is not a lower_snake_case one. */
export const SPEC_EMBED_ERROR_CODES: readonly string[] = [...PUBLIC_ERROR_CODES, 'RATE_LIMIT_EXCEEDED'];

/** Every `error_code` the License envelope can send (docs/license.md, "Errors"). */
export const LICENSE_ERROR_CODES: readonly string[] = [
  ...LICENSE_SPECIFIC_CODES,
  ...Object.values(LICENSE_GENERAL_CODES),
  LICENSE_FALLBACK_CODE,
];

export const envelopes: Record<InterfaceName, Envelope> = {
  embed,
  storefront,
  analytics,
  merchant,
  license,
  fivem,
  platform,
};
