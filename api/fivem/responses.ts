import { object, ref, schemaRef } from '../openapi/component-helpers';
import type { Infer } from '../../shared/json-schema';
import type { TypedResponse } from '../http/route';
import type { ResponseObject, SchemaObject } from '../openapi/types';

/**
 * The FiveM API's answers as the OpenAPI document shows them: `{success, data}` on success,
 * `{success: false}` and the one error object of docs/errors.md (`error_code`, `message`, `doc_url`, plus
 * `errors` on invalid input) on failure, with `next_check` on a rate limit.
 */

const json = (schema: SchemaObject, example?: unknown): ResponseObject['content'] => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

/** `{success: false, error_code, message, doc_url}`, plus `errors` on invalid input, `next_check` on a 429. */
export const fivemErrorSchema: SchemaObject = schemaRef('FiveMError');

export const fivemRefused = (description: string, errorCode: string, message: string): ResponseObject => ({
  description,
  content: json(fivemErrorSchema, {
    success: false,
    error_code: errorCode,
    message,
    doc_url: `/docs/errors.md#${errorCode}`,
  }),
});

export const FIVEM_INVALID: ResponseObject = {
  description: 'Invalid request: every invalid field with its messages.',
  content: json(
    { allOf: [fivemErrorSchema, object({ errors: schemaRef('FieldErrors') })] },
    {
      success: false,
      error_code: 'validation_failed',
      message: 'Invalid request',
      errors: { 'ids.0': ['ids[0] must be an integer'] },
      doc_url: '/docs/errors.md#validation_failed',
    },
  ),
};

export const FIVEM_LIMITED: ResponseObject = {
  description:
    'Too many requests (600 per minute per IP, 300 per minute per game server): wait `next_check` ' +
    '(also `Retry-After`) seconds.',
  headers: {
    'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
    'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
    'Retry-After': ref('headers', 'Retry-After'),
  },
  content: json(fivemErrorSchema, {
    success: false,
    error_code: 'rate_limited',
    message: 'Too many requests. Please try again later.',
    doc_url: '/docs/errors.md#rate_limited',
    next_check: 42,
  }),
};

export const FIVEM_UNAUTHENTICATED = fivemRefused(
  'The `X-FiveM-Secret` header is missing, or is not a live secret of a game server (merchant tokens and ' +
    'embed keys are refused too).',
  'unauthenticated',
  'Invalid FiveM secret',
);

/** A queued command as a listing hands it out (docs/operations.md: at least `id` and `command`). */
export const queuedCommandSchema: SchemaObject = {
  type: 'object',
  required: ['id', 'command', 'player', 'order_id', 'require_online', 'inventory_slots', 'lease_expires_at'],
  properties: {
    id: { type: 'integer', description: 'Acknowledge with this id once the command ran.' },
    command: { type: 'string', description: 'The console command to run, placeholders filled.' },
    player: {
      type: ['string', 'null'],
      description: 'The player id the buyer entered (first custom field whose label contains "player").',
    },
    order_id: { type: ['integer', 'null'] },
    require_online: { type: 'boolean' },
    inventory_slots: {
      type: ['integer', 'null'],
      description: 'Free inventory slots the player needs before the command runs; null: no condition.',
    },
    lease_expires_at: {
      type: 'string',
      format: 'date-time',
      description: 'Acknowledge before then, or the command is listed again.',
    },
  },
};

export const nextCheckSchema: SchemaObject = {
  type: 'integer',
  minimum: 1,
  description: 'Seconds until the resource should ask again.',
};

export const fivemOk = <const S extends SchemaObject>(
  description: string,
  data: S,
  example?: unknown,
): TypedResponse<Infer<S>> => ({
  description,
  content: json(
    { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data } },
    example,
  ),
});
