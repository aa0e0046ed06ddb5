import type {
  ComponentsObject,
  MediaTypeObject,
  OperationObject,
  ParameterObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirement,
} from './types';
import { object, ref, schemaRef } from './component-helpers';
import { sharedSchemas } from './schemas';
import { licenseResponses, licenseSchemas } from './license-schemas';
import { ERROR_CODES } from '../../shared/error-codes';
import { customerSchema } from '../../shared/services/customers/schema';
import type { Infer } from '../../shared/json-schema';
import type { TypedResponse } from '../http/route';
import { SPEC_EMBED_ERROR_CODES } from '../envelopes';
import { REFUSAL_CODE } from '../downloads/messages';

export { object, ref, schemaRef };

/**
 * What the interfaces share: their envelopes (spec, Errors), the rate-limit answers and headers, and the
 * security schemes. Fragments refer to these through the helpers below rather than spelling `$ref`s.
 */

const json = (schema: SchemaObject, example?: unknown): Record<string, MediaTypeObject> => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

export const EMBED_ERROR_CODES = [
  'PHONE_BLOCKED',
  'RATE_LIMIT_EXCEEDED',
  'COOLDOWN_ACTIVE',
  'SESSION_EXPIRED',
  'INVALID_CODE',
  'MAX_ATTEMPTS_REACHED',
] as const;

/**
 * A stable, machine-readable name of the failure (docs/errors.md), on every error envelope; clients
 * branch on it rather than on `message`, which is for people and may be translated. Each interface's
 * schema lists exactly the codes its envelope can send (api/envelopes.ts).
 */
const STABLE_CODES: string[] = Object.values(ERROR_CODES);

const errorCode = (codes: readonly string[], description?: string): SchemaObject => ({
  type: 'string',
  description:
    description ??
    'Stable name of the failure (docs/errors.md); `message` is for people and may be translated.',
  enum: [...codes],
});

const docUrl: SchemaObject = {
  type: 'string',
  format: 'uri-reference',
  description: 'Where docs/errors.md explains the code: `/docs/errors.md#<code>`.',
  examples: ['/docs/errors.md#not_found'],
};

/** The one error object's members (docs/errors.md, "One error object"), for the interfaces that answer it. */
const errorObjectProperties = {
  error_code: errorCode(STABLE_CODES),
  message: { type: 'string' },
  errors: schemaRef('FieldErrors'),
  doc_url: docUrl,
} satisfies Record<string, SchemaObject>;

const errorObject = (description: string): SchemaObject => ({
  type: 'object',
  description,
  required: ['error_code', 'message', 'doc_url'],
  properties: errorObjectProperties,
  additionalProperties: false,
});

const fieldErrors: SchemaObject = {
  type: 'object',
  description: 'Each invalid field mapped to its messages.',
  additionalProperties: { type: 'array', items: { type: 'string' } },
  examples: [{ phone: ['phone is required'], email: ['email must be a valid email'] }],
};

const schemas: Record<string, SchemaObject> = {
  FieldErrors: fieldErrors,
  EmbedSuccess: {
    type: 'object',
    description: 'Embed API success envelope.',
    required: ['success', 'data'],
    properties: { success: { const: true }, data: {} },
  },
  EmbedError: {
    type: 'object',
    description:
      'Embed API error envelope; `error_code` and the extra fields appear where the spec lists them.',
    required: ['success', 'message'],
    properties: {
      success: { const: false },
      message: { type: 'string' },
      error_code: errorCode(
        [...SPEC_EMBED_ERROR_CODES, ...STABLE_CODES],
        `The spec's codes (${EMBED_ERROR_CODES.join(', ')}), else a stable lower_snake_case code of docs/errors.md.`,
      ),
      retry_after: {
        type: 'integer',
        description: 'Seconds to wait (RATE_LIMIT_EXCEEDED, COOLDOWN_ACTIVE).',
      },
      remaining_attempts: { type: 'integer', description: 'INVALID_CODE only.' },
      cooldown_seconds: { type: ['integer', 'null'], description: 'INVALID_CODE only.' },
      errors: schemaRef('FieldErrors'),
    },
  },
  ValidationError: {
    type: 'object',
    description:
      'A 422 answer: `message` and `errors`, inside the envelope of the interface (`success: false` on the Embed ' +
      'and Storefront APIs; `data`, `api`, `timestamp` and `error` on the Merchant API).',
    required: ['message', 'errors'],
    properties: { message: { type: 'string' }, errors: schemaRef('FieldErrors') },
  },
  StorefrontSuccess: {
    type: 'object',
    description: 'Storefront API (and wishlist) success envelope; each operation narrows `data`.',
    required: ['success', 'data', 'message'],
    properties: { success: { const: true }, data: {}, message: { type: ['string', 'null'] } },
  },
  StorefrontError: {
    type: 'object',
    description: 'Storefront API error envelope (a 429 is `MessageOnly`).',
    required: ['success', 'data', 'message', 'error_code'],
    properties: {
      success: { const: false },
      data: { type: 'null' },
      message: { type: 'string' },
      error_code: errorCode([...SPEC_EMBED_ERROR_CODES, ...STABLE_CODES]),
      errors: schemaRef('FieldErrors'),
    },
  },
  MerchantSuccess: {
    type: 'object',
    description: 'Merchant API success envelope; each operation narrows `data`.',
    required: ['message', 'data', 'api', 'timestamp'],
    properties: {
      message: { type: ['string', 'null'] },
      data: {},
      api: { type: 'string', const: 'merchant' },
      timestamp: { type: 'integer', description: 'Unix time in seconds.' },
    },
  },
  MerchantError: {
    type: 'object',
    description: 'Merchant API error envelope: `data` is null and `error` true (a 429 is `MessageOnly`).',
    required: ['message', 'data', 'api', 'timestamp', 'error', 'error_code'],
    properties: {
      message: { type: 'string' },
      data: { type: 'null' },
      api: { type: 'string', const: 'merchant' },
      timestamp: { type: 'integer', description: 'Unix time in seconds.' },
      error: { const: true },
      error_code: errorCode(STABLE_CODES),
      errors: schemaRef('FieldErrors'),
    },
  },
  AnalyticsAccepted: {
    type: 'object',
    description: 'Analytics collection answer (no success/data wrapper).',
    required: ['status'],
    properties: { status: { const: 'ok' }, processed: { type: 'integer' } },
  },
  AnalyticsError: errorObject(
    'Analytics collection error, 429 included: the one error object (the spec gives status codes only).',
  ),
  LicenseServerError: {
    type: 'object',
    description:
      'A License API failure outside the signed answers (an unexpected error): `success: false`, `message` ' +
      'and `error_code`.',
    required: ['success', 'message', 'error_code'],
    properties: {
      success: { const: false },
      message: { type: 'string' },
      error_code: errorCode(['SERVER_ERROR']),
    },
  },
  FiveMError: {
    type: 'object',
    description: 'FiveM API error envelope: `success: false` and the one error object.',
    required: ['success', 'error_code', 'message', 'doc_url'],
    properties: {
      success: { const: false },
      ...errorObjectProperties,
      next_check: { type: 'integer', description: 'On a 429: seconds to wait before the next request.' },
    },
    additionalProperties: false,
  },
  MessageOnly: {
    type: 'object',
    description: 'The 429 body of the Merchant, Storefront and License APIs (spec, "Rate limit responses").',
    required: ['message'],
    properties: { message: { type: 'string' } },
    additionalProperties: false,
  },
  DownloadRefusal: {
    type: 'object',
    description:
      'A refused download (JSON for `Accept: application/json`): the one error object, with the reason ' +
      'as its code (docs/downloads.md).',
    required: ['error_code', 'message', 'doc_url'],
    properties: {
      ...errorObjectProperties,
      error_code: errorCode(Object.values(REFUSAL_CODE)),
    },
    additionalProperties: false,
  },
  PlatformError: errorObject(
    'Errors of the platform routes (health, docs, dashboard, payment pages, webhooks, development): the ' +
      'one error object.',
  ),
  Customer: customerSchema,
};

const headers: ComponentsObject['headers'] = {
  'X-RateLimit-Limit': {
    description: 'Size of the tightest limit that applies to this request.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in that limit’s window.',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until that limit’s window starts again (a delta, like Retry-After).',
    schema: { type: 'integer' },
  },
  'Retry-After': { description: 'Seconds until a retry can succeed.', schema: { type: 'integer' } },
  'X-Request-Id': {
    description: 'Id of this request in the server logs (the caller’s own when it sent a well-formed one).',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when the answer is the replay of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Cart-Id': {
    description: 'The anonymous cart’s id, to send back as `X-Cart-Id`.',
    schema: { type: 'string' },
  },
};

const rateLimitHeaders = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
  'Retry-After': ref('headers', 'Retry-After'),
};

/**
 * 500 and 503 of each interface, in its own error envelope (api/envelopes.ts): `{Tag}InternalError` and
 * `{Tag}DependencyUnavailable`, the error schema named by the interface (api/interfaces.ts).
 */
export const SERVER_ERROR_SCHEMAS = {
  Embed: 'EmbedError',
  Storefront: 'StorefrontError',
  Analytics: 'AnalyticsError',
  Merchant: 'MerchantError',
  License: 'LicenseServerError',
  FiveM: 'FiveMError',
  Platform: 'PlatformError',
} as const;

function serverErrors(): Record<string, ResponseObject> {
  const out: Record<string, ResponseObject> = {};
  for (const [tag, schema] of Object.entries(SERVER_ERROR_SCHEMAS)) {
    out[`${tag}InternalError`] = {
      description:
        'Unexpected failure, in the interface’s error envelope with a generic message and no detail; the ' +
        'server log has it under the `X-Request-Id` of the answer.',
      content: json(schemaRef(schema)),
    };
    out[`${tag}DependencyUnavailable`] = {
      description: 'A dependency (Postgres or Redis) cannot be reached; retry after `Retry-After` seconds.',
      headers: { 'Retry-After': ref('headers', 'Retry-After') },
      content: json(schemaRef(schema)),
    };
  }
  return out;
}

const responses: Record<string, ResponseObject> = {
  ...serverErrors(),
  EmbedRateLimited: {
    description: 'Too many requests (`RATE_LIMIT_EXCEEDED`, with `retry_after` in seconds).',
    headers: rateLimitHeaders,
    content: json(schemaRef('EmbedError'), {
      success: false,
      message: 'Too many requests',
      error_code: 'RATE_LIMIT_EXCEEDED',
      retry_after: 42,
    }),
  },
  RateLimited: {
    description: 'Too many requests: a message only (Merchant, Storefront and License).',
    headers: rateLimitHeaders,
    content: json(schemaRef('MessageOnly'), { message: 'Too many requests' }),
  },
  EmbedValidationFailed: {
    description: 'Invalid request: every invalid field with its messages.',
    content: json({ allOf: [schemaRef('EmbedError'), schemaRef('ValidationError')] }),
  },
  EmbedUnauthenticated: {
    description: 'Embed key missing or unknown, or (where a customer token is needed) the token is invalid.',
    content: json(schemaRef('EmbedError'), { success: false, message: 'Invalid embed key' }),
  },
  EmbedForbidden: {
    description:
      'The Origin (else Referer) is not among the store’s allowed origins, or the token is not for this store.',
    content: json(schemaRef('EmbedError'), { success: false, message: 'Origin not allowed' }),
  },
  EmbedError: {
    description: 'Refused; see `message` and, where the spec gives one, `error_code`.',
    content: json(schemaRef('EmbedError')),
  },
  StorefrontValidationFailed: {
    description: 'Invalid request: every invalid field with its messages.',
    content: json({ allOf: [schemaRef('StorefrontError'), schemaRef('ValidationError')] }),
  },
  StorefrontError: {
    description: 'Refused; see `message`.',
    content: json(schemaRef('StorefrontError')),
  },
  StoreNotResolved: {
    description: 'No store matches the request’s Host or Origin.',
    content: json(schemaRef('StorefrontError')),
  },
  MerchantValidationFailed: {
    description: 'Invalid request: every invalid field with its messages.',
    content: json({ allOf: [schemaRef('MerchantError'), schemaRef('ValidationError')] }),
  },
  MerchantError: {
    description: 'Refused; `data` is null and `error` true.',
    content: json(schemaRef('MerchantError')),
  },
  PlatformError: {
    description: 'Refused; see `error_code` and `message`.',
    content: json(schemaRef('PlatformError'), {
      error_code: 'not_found',
      message: 'Not found',
      doc_url: '/docs/errors.md#not_found',
    }),
  },
  AnalyticsError: {
    description: 'Refused; see `error_code` and `message` (and `errors` per field on a 422).',
    content: json(schemaRef('AnalyticsError')),
  },
  AnalyticsRateLimited: {
    description: 'More than 120 events in a minute from one IP (`rate_limited`), with `Retry-After`.',
    headers: rateLimitHeaders,
    content: json(schemaRef('AnalyticsError'), {
      error_code: 'rate_limited',
      message: 'Too many requests. Please try again later.',
      doc_url: '/docs/errors.md#rate_limited',
    }),
  },
};

/** Request headers a route reads, named in its declaration (`headers: ['IdempotencyKey']`). */
const parameters: Record<string, ParameterObject> = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key with the same body answers the first result again ' +
      '(`Idempotent-Replayed: true`) and creates nothing; with another body it is a 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    example: 'order-2026-11-24-0001',
  },
  CartId: {
    name: 'X-Cart-Id',
    in: 'header',
    required: false,
    description:
      'An anonymous visitor’s cart, as the first add answered it (`cart_id`, also in `X-Cart-Id`).',
    schema: { type: 'string' },
  },
  AcceptLanguage: {
    name: 'Accept-Language',
    in: 'header',
    required: false,
    description: 'Language of messages meant for people: Arabic (`ar`) or English (`en`, the default).',
    schema: { type: 'string' },
    example: 'ar',
  },
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Your id for this request, echoed in the answer’s `X-Request-Id` and the logs: kept when it is 8 to 100 ' +
      'of `A-Z a-z 0-9 . _ : -`, else replaced by a new one (never refused).',
    schema: { type: 'string' },
    example: 'checkout-7f3a9c21',
  },
};

const securitySchemes: ComponentsObject['securitySchemes'] = {
  EmbedKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Embed-Key',
    description: 'The store’s public embed key (begins with `emb_pk_`); safe in client code.',
  },
  EmbedKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'embed_key',
    description: 'The embed key as a query parameter.',
  },
  CustomerBearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Customer access token from auth/verify or auth/complete. Embed tokens carry only `embed:checkout` and ' +
      '`embed:validate` and are refused by the Storefront API; storefront tokens are refused by the Embed API.',
  },
  MerchantBearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'Merchant API token of a store on the paid plan.',
  },
  DashboardBasic: { type: 'http', scheme: 'basic', description: 'DASHBOARD_USER / DASHBOARD_PASSWORD.' },
  FiveMSecret: {
    type: 'apiKey',
    in: 'header',
    name: 'X-FiveM-Secret',
    description: 'The store’s FiveM secret.',
  },
};

export const components: ComponentsObject = {
  schemas: { ...schemas, ...sharedSchemas, ...licenseSchemas },
  responses: { ...responses, ...licenseResponses },
  parameters,
  headers,
  securitySchemes,
};

// ------------------------------------------------------------------------------------- fragment helpers

/** Security requirements: the embed key in the header or, alternatively, in the query. */
export const EMBED_KEY_SECURITY: SecurityRequirement[] = [{ EmbedKey: [] }, { EmbedKeyQuery: [] }];
export const NO_CREDENTIALS: SecurityRequirement[] = [];

/** A JSON request body for `schema` (an object schema). */
export function jsonBody(schema: SchemaObject, example?: unknown): RequestBodyObject {
  return { required: true, content: json(schema, example) };
}

/** A JSON answer as sent, envelope included: untyped, since each interface's envelope wraps `data` its own way. */
export function jsonResponse(description: string, schema: SchemaObject, example?: unknown): ResponseObject {
  return { description, content: json(schema, example) };
}

/**
 * A success envelope (`EmbedSuccess`, `StorefrontSuccess`, `MerchantSuccess`) whose `data` is `data`,
 * required, so a generated client types `body.data` as that and not as `data?`.
 */
export const successOf = (envelope: string, data: SchemaObject): SchemaObject => ({
  allOf: [schemaRef(envelope), { type: 'object', required: ['data'], properties: { data } }],
});

/** `{success: true, data: <data>}` of the Embed API (the rate-limit headers are added by the generator). */
export function embedOk<const S extends SchemaObject>(
  description: string,
  data: S,
  example?: unknown,
): TypedResponse<Infer<S>> {
  return { description, content: json(successOf('EmbedSuccess', data), example) };
}

/** `{success: true, data: <data>, message}` of the Storefront API. */
export function storefrontOk<const S extends SchemaObject>(
  description: string,
  data: S,
  example?: unknown,
): TypedResponse<Infer<S>> {
  return { description, content: json(successOf('StorefrontSuccess', data), example) };
}

export type Responses = OperationObject['responses'];

/** An HTML page answer. */
export const htmlResponse = (description: string): ResponseObject => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});

/** A redirect: the browser goes on to `Location`. */
export const redirectResponse = (description: string): ResponseObject => ({
  description,
  headers: {
    Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri' } },
  },
});
