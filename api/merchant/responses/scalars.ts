import { pageMetaSchema } from '../../../shared/views';
import { object } from '../../openapi/component-helpers';
import type { SchemaObject } from '../../openapi/types';

/** The scalar shapes every resource is made of, the object shorthand and the page. */
export const str: SchemaObject = { type: 'string' };
export const nstr: SchemaObject = { type: ['string', 'null'] };
export const int: SchemaObject = { type: 'integer' };
export const nint: SchemaObject = { type: ['integer', 'null'] };
export const bool: SchemaObject = { type: 'boolean' };
export const money: SchemaObject = {
  type: 'string',
  pattern: '^-?\\d+(\\.\\d{2,3})?$',
  description:
    'Decimal string with the currency’s own decimals (ISO 4217: 2 for SAR, 3 for KWD, none for JPY).',
};
export const nmoney: SchemaObject = { type: ['string', 'null'], pattern: '^-?\\d+(\\.\\d{2,3})?$' };
export const time: SchemaObject = { type: 'string', format: 'date-time' };
export const ntime: SchemaObject = { type: ['string', 'null'], format: 'date-time' };
export const status: SchemaObject = {
  type: 'integer',
  minimum: 1,
  maximum: 6,
  description: 'Order status code.',
};

/** The document's one object shorthand (api/openapi/component-helpers.ts): every property required unless named optional. */
export const obj = object;

/** A page: rows in `data`, totals in `meta`, and the Laravel paginator fields. */
export function pageOf(item: SchemaObject): SchemaObject {
  return obj({
    data: { type: 'array', items: item },
    meta: pageMetaSchema,
    current_page: int,
    per_page: int,
    total: int,
    last_page: int,
  });
}
