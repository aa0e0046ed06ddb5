import { object, schemaRef } from './component-helpers';
import type { HeaderObject, MediaTypeObject, ResponseObject, SchemaObject } from './types';

/**
 * Answer shapes of the License Verification API (docs/license.md). Every answer of POST /verify may come
 * encrypted (`LicenseEncrypted`) when the product says so, so each is documented as "the plain document or
 * its encryption".
 */

export const LICENSE_ERROR_CODES = [
  'LICENSE_NOT_FOUND',
  'LICENSE_EXPIRED',
  'LICENSE_SUSPENDED',
  'LICENSE_REVOKED',
  'LICENSE_NOT_ACTIVE',
  'HWID_REQUIRED',
  'ACTIVATION_LIMIT_REACHED',
  'RESET_LIMIT_REACHED',
  'VALIDATION_FAILED',
  'INVALID_REQUEST',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'SERVER_ERROR',
  'REQUEST_FAILED',
] as const;

const stamp = {
  nonce: {
    type: ['string', 'null'],
    description: 'The request’s `nonce`, or null when none (or an invalid one) was sent.',
  },
  timestamp: { type: 'integer', description: 'Server time of the answer, Unix seconds.' },
} satisfies Record<string, SchemaObject>;

const dayMonthYear = (description: string, nullable = false): SchemaObject => ({
  type: nullable ? ['string', 'null'] : 'string',
  pattern: '^\\d{2}-\\d{2}-\\d{4}$',
  description,
});

export const licenseSchemas: Record<string, SchemaObject> = {
  LicenseResult: object({
    status: {
      type: 'string',
      enum: ['active', 'grace'],
      description:
        '`grace`: past its expiry but within the product’s grace period (`grace_ends_at`); every other state ' +
        'is an error answer.',
    },
    lock_type: { type: 'string', enum: ['none', 'hwid', 'ip'] },
    product: object({ id: { type: 'integer' }, name: { type: 'string' } }),
    plan: object({
      duration: {
        type: 'string',
        enum: ['monthly', 'quarterly', 'yearly', 'lifetime', 'custom'],
        description: 'The plan’s duration key; without a plan: lifetime (no expiry) or custom.',
      },
      duration_label: {
        type: 'string',
        description: 'Localized by Accept-Language (ar or en; en by default).',
      },
      start_date: dayMonthYear('Day-month-year, UTC.'),
      end_date: dayMonthYear('Day-month-year, UTC; null for a lifetime license.', true),
      is_active: { type: 'boolean' },
    }),
    expires_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'ISO 8601 UTC; null for a lifetime license.',
    },
    expires_in_days: {
      type: ['integer', 'null'],
      description: 'Whole days until expiry, rounded up; null for a lifetime license.',
    },
    activations: object({
      current: { type: 'integer', description: 'Always 0 under lock none (nothing is counted).' },
      max: { type: 'integer', description: '0 means unlimited.' },
      remaining: { type: ['integer', 'null'], description: 'max - current; null when max is 0 (unlimited).' },
    }),
    metadata: { type: ['object', 'null'] },
    entitlements: {
      type: 'object',
      additionalProperties: { type: ['boolean', 'integer', 'string'] },
      description: 'The plan’s named features, e.g. {"pro_export": true, "max_projects": 10}; {} when none.',
    },
    not_before: {
      type: 'integer',
      description: 'Unix seconds: offline certificates of this license with an earlier `iat` are void.',
    },
    grace_ends_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When a license in `grace` stops verifying; null when active.',
    },
    checkin_days: {
      type: 'integer',
      description: 'Certificates of this product last at most this many days; 0: the 30-day limit only.',
    },
  }),
  LicenseEncrypted: {
    ...object({
      encrypted: { const: true },
      alg: { const: 'AES-256-GCM' },
      iv: { type: 'string', description: '96-bit IV, base64; fresh for every answer.' },
      tag: { type: 'string', description: '128-bit GCM tag, base64.' },
      data: { type: 'string', description: 'Ciphertext of the plain JSON answer, base64.' },
    }),
    description:
      'An answer of a product that encrypts: the plain answer’s JSON encrypted with AES-256-GCM under the ' +
      'product’s key (docs/license.md, "Encrypted answers").',
  },
  LicenseSuccess: {
    ...object({ success: { const: true }, data: schemaRef('LicenseResult'), ...stamp }),
    additionalProperties: false,
  },
  LicenseError: {
    ...object(
      {
        success: { const: false },
        message: { type: 'string' },
        error_code: { type: 'string', enum: [...LICENSE_ERROR_CODES] },
        errors: schemaRef('FieldErrors'),
        next_reset_at: {
          type: 'string',
          format: 'date-time',
          description: '`RESET_LIMIT_REACHED`: when the next self-service reset becomes available.',
        },
        ...stamp,
      },
      // A body that is not JSON is refused before the route: no nonce, no timestamp, no signature.
      ['errors', 'next_reset_at', 'nonce', 'timestamp'],
    ),
    additionalProperties: false,
  },
};

const json = (schema: SchemaObject, example?: unknown): Record<string, MediaTypeObject> => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

const signed: Record<string, HeaderObject> = {
  'X-Signature': {
    description: 'Ed25519 signature (base64) over the exact body, by the key of GET /verify/public-key.',
    schema: { type: 'string' },
  },
  'X-Signature-Key-Id': {
    description: 'First 16 hex digits of SHA-256 over the raw public key.',
    schema: { type: 'string' },
  },
};

/** A License API answer: `plain` as is, or encrypted; signed either way. */
export function licenseAnswer(description: string, plain: SchemaObject, example?: unknown): ResponseObject {
  return {
    description,
    headers: signed,
    content: json({ oneOf: [plain, schemaRef('LicenseEncrypted')] }, example),
  };
}

export const licenseResponses: Record<string, ResponseObject> = {
  LicenseValidationFailed: licenseAnswer(
    'Invalid request (`VALIDATION_FAILED`): every invalid field with its messages.',
    schemaRef('LicenseError'),
    {
      success: false,
      message: 'Invalid request',
      error_code: 'VALIDATION_FAILED',
      errors: { license_key: ['license_key is required'] },
      nonce: null,
      timestamp: 1795444800,
    },
  ),
};
