import { ref, schemaRef } from '../../openapi/components';
import type { ResponseObject, SchemaObject } from '../../openapi/types';
import type { PublicErrorCode } from '../../../shared/error-codes';
import type { Infer } from '../../../shared/json-schema';
import type { TypedResponse } from '../../http/route';

/** The Merchant envelope around `data`; the route's handler must return what `data` describes. */
export function merchantOk<const S extends SchemaObject>(
  description: string,
  data: S,
  example?: unknown,
): TypedResponse<Infer<S>> {
  const schema: SchemaObject = {
    allOf: [schemaRef('MerchantSuccess'), { type: 'object', required: ['data'], properties: { data } }],
  };
  return {
    description,
    content: { 'application/json': example === undefined ? { schema } : { schema, example } },
  };
}

/** The answer of an `Idempotency-Key` replay: it says so in `Idempotent-Replayed`. */
export const replayed = <T extends ResponseObject>(response: T): T => ({
  ...response,
  headers: { ...response.headers, 'Idempotent-Replayed': ref('headers', 'Idempotent-Replayed') },
});

/** A Merchant error answer: its example code (docs/errors.md), its own description and an example message. */
export const merchantRefused = (
  errorCode: PublicErrorCode,
  description: string,
  message: string,
): ResponseObject => ({
  description,
  content: {
    'application/json': {
      schema: schemaRef('MerchantError'),
      example: {
        message,
        data: null,
        api: 'merchant',
        timestamp: 1795000000,
        error: true,
        error_code: errorCode,
      },
    },
  },
});
