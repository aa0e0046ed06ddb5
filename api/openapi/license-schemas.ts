import { object, schemaRef } from './component-helpers';
import { LICENSE_ERROR_CODES } from '../envelopes';
import type { HeaderObject, MediaTypeObject, ResponseObject, SchemaObject } from './types';

/**
 * Answer shapes of the License Verification API (docs/license.md). Every answer of POST /verify may come
 * encrypted (`LicenseEncrypted`) when the product says so, so each is documented as "the plain document or
 * its encryption".
 */

const stamp = {
  request: schemaRef('LicenseRequestBinding'),
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
  LicenseRequestBinding: {
    ...object({
      product_id: {
        type: ['integer', 'null'],
        description: 'The `product_id` sent; null when it was not one.',
      },
      license_key_sha256: {
        type: ['string', 'null'],
        pattern: '^[0-9a-f]{64}$',
        description:
          'Lowercase hex SHA-256 of `license_key` exactly as sent (UTF-8); null when none was sent.',
      },
      hwid: { type: ['string', 'null'], description: 'The `hwid` exactly as sent; null when none was sent.' },
    }),
    additionalProperties: false,
    description:
      'The request this answer answers, inside what is signed (and encrypted): a client refuses an answer ' +
      'whose `request` is not its own, so an answer about another key, product or machine cannot be relayed.',
  },
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
      remaining: {
        type: 'integer',
        minimum: 0,
        description: 'max - current, never below 0; 0 when max is 0 (unlimited): read it together with max.',
      },
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
      ['errors', 'next_reset_at'],
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
  LicenseRateLimited: {
    description:
      'More than 60 requests in a minute from one IP: `message`, with the request binding, `nonce` and ' +
      '`timestamp`; signed, never encrypted.',
    headers: {
      ...signed,
      'Retry-After': { description: 'Seconds until a retry can succeed.', schema: { type: 'integer' } },
    },
    content: json(
      {
        ...object({ message: { type: 'string' }, ...stamp }),
        additionalProperties: false,
      },
      {
        message: 'Too many requests. Please try again later.',
        request: {
          product_id: 12,
          license_key_sha256: 'd0698dcec83d37de1d009b4f29e7a5fba77a24d3e294fe76df92a141fa8a175f',
          hwid: 'B7F3-99A1-PC',
        },
        nonce: '3f9c0d2e',
        timestamp: 1795444800,
      },
    ),
  },
  LicenseUnavailable: {
    description:
      'Postgres or Redis cannot be reached (`SERVER_ERROR`): retry after `Retry-After` seconds. Signed, with ' +
      'the request binding, `nonce` and `timestamp`; never encrypted (whether the product encrypts may be ' +
      'unknown during an outage).',
    headers: {
      ...signed,
      'Retry-After': { description: 'Seconds until a retry can succeed.', schema: { type: 'integer' } },
    },
    content: json(schemaRef('LicenseError'), {
      success: false,
      message: 'Service temporarily unavailable. Please try again later.',
      error_code: 'SERVER_ERROR',
      request: {
        product_id: 12,
        license_key_sha256: 'd0698dcec83d37de1d009b4f29e7a5fba77a24d3e294fe76df92a141fa8a175f',
        hwid: null,
      },
      nonce: '3f9c0d2e',
      timestamp: 1795444800,
    }),
  },
  LicenseValidationFailed: licenseAnswer(
    'Invalid request (`VALIDATION_FAILED`): every invalid field with its messages.',
    schemaRef('LicenseError'),
    {
      success: false,
      message: 'Invalid request',
      error_code: 'VALIDATION_FAILED',
      errors: { license_key: ['license_key is required'] },
      request: { product_id: 12, license_key_sha256: null, hwid: null },
      nonce: null,
      timestamp: 1795444800,
    },
  ),
};
