import type { SchemaObject } from './types';

/**
 * Examples made from schemas, for the request bodies and 2xx answers whose declaration gives none: the
 * docs page and generated clients then show a value of the right shape for every operation. They are
 * checked against their schemas by Redocly and Spectral (test/integration/openapi-lint.test.ts), so a
 * schema this cannot satisfy fails the suite and gets a written example in its declaration instead.
 */

/** Strings tried, in order, against a `pattern` (the first that matches is used). */
const PATTERN_CANDIDATES = [
  '10.00',
  '0',
  '12',
  'd0698dcec83d37de1d009b4f29e7a5fba77a24d3e294fe76df92a141fa8a175f',
  '24-11-2026',
  '2026-11-24',
  'SUMMER10',
  'example',
  'Example',
  '966',
  '500000001',
  '+966500000001',
  'sa',
  'SA',
  'SAR',
  '#1f6feb',
  'a1',
];

/** Values by property name, used when they fit the property's schema (a shape a reader recognises). */
const BY_NAME: Record<string, string> = {
  currency: 'SAR',
  country_code: '966',
  customer_country_code: '966',
  phone: '500000001',
  customer_phone: '500000001',
  email: 'buyer@example.com',
  customer_email: 'buyer@example.com',
  name: 'Pro Toolkit',
  name_en: 'Card',
  name_ar: 'بطاقة',
  firstName: 'Sara',
  first_name: 'Sara',
  customer_first_name: 'Sara',
  lastName: 'Ali',
  last_name: 'Ali',
  customer_last_name: 'Ali',
  slug: 'pro-toolkit',
  code: 'SUMMER10',
  coupon_code: 'SUMMER10',
  message: 'OK',
  status_label: 'Completed',
  label: 'Colour',
  title: 'Great product',
  comment: 'Works as described.',
  description: 'A short description.',
  reason: 'Customer request',
  note: 'Returned by bank transfer',
  url: 'https://shop.example.test/path',
  image_url: 'https://shop.example.test/media/1.png',
  invoice_url: 'https://shop.example.test/invoices/1',
  checkout_url: '3q2+7w8Kx0mJv5yQ1Zt4bN9fR6hL2cP0',
  session_token: 'st_2f1c8e5b9a7d4e3c',
  token: 'tok_9b2e7c4a1f6d8e3b',
  masked_phone: '+966 ••••••001',
  hwid: 'B7F3-99A1-PC',
  license_key: 'DEMO-7K2M-Q9XP-4HTW-8RJN',
  source: 'embed',
  payment_method: 'card',
  provider: 'sandbox',
  domain: 'shop.example.test',
};

const FORMATS: Record<string, string> = {
  'date-time': '2026-11-24T12:00:00.000Z',
  date: '2026-11-24',
  time: '12:00:00',
  uri: 'https://shop.example.test/path',
  url: 'https://shop.example.test/path',
  email: 'buyer@example.com',
  uuid: '0b5e4a52-2a7e-4c3b-9d0e-6f1a2b3c4d5e',
  ipv4: '203.0.113.7',
  ipv6: '2001:db8::7',
  hostname: 'shop.example.test',
};

function sampleString(schema: SchemaObject, name?: string): string {
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
  const fits = (s: string): boolean =>
    (schema.minLength === undefined || [...s].length >= schema.minLength) &&
    (schema.maxLength === undefined || [...s].length <= schema.maxLength) &&
    (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(s));
  const named = name === undefined ? undefined : BY_NAME[name];
  if (named !== undefined && fits(named)) return named;
  if (schema.pattern) {
    const re = new RegExp(schema.pattern, 'u');
    const found = PATTERN_CANDIDATES.find((c) => re.test(c) && fits(c));
    if (found !== undefined) return found;
  }
  let value = 'example';
  if (schema.minLength !== undefined && value.length < schema.minLength) {
    value = value.padEnd(schema.minLength, 'x');
  }
  if (schema.maxLength !== undefined) value = value.slice(0, Math.max(schema.maxLength, 0));
  return value;
}

function sampleNumber(schema: SchemaObject & { exclusiveMinimum?: number }, integer: boolean): number {
  let value = 1;
  if (schema.minimum !== undefined) value = Math.max(value, schema.minimum);
  if (schema.exclusiveMinimum !== undefined) {
    value = Math.max(value, integer ? schema.exclusiveMinimum + 1 : schema.exclusiveMinimum + 0.5);
  }
  if (schema.maximum !== undefined) value = Math.min(value, schema.maximum);
  return value;
}

/** A value for `schema`; `$ref`s are resolved in `schemas` (the document's components). */
export function sampleOf(
  schema: SchemaObject,
  schemas: Record<string, SchemaObject>,
  depth = 0,
  name?: string,
): unknown {
  if (depth > 12) return null;
  const next = (s: SchemaObject): unknown => sampleOf(s, schemas, depth + 1, name);
  if (schema.$ref) {
    const target = schemas[schema.$ref.replace('#/components/schemas/', '')];
    return target ? next(target) : null;
  }
  if (schema.examples && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.allOf) {
    const parts = schema.allOf.map(next);
    if (parts.every((p) => p && typeof p === 'object' && !Array.isArray(p))) {
      return Object.assign({}, ...parts, objectOf(schema, schemas, depth));
    }
    return parts[parts.length - 1];
  }
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches && branches.length > 0 && !schema.properties) {
    return next(branches.find((b) => b.type !== 'null') ?? branches[0]!);
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type = types.find((t) => t !== 'null') ?? types[0] ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object':
      return objectOf(schema, schemas, depth);
    case 'array': {
      if (schema.maxItems === 0 || !schema.items) return [];
      const item = next(schema.items);
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'string':
      return sampleString(schema, name);
    case 'integer':
      return sampleNumber(schema, true);
    case 'number':
      return sampleNumber(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** The object's required properties (all of them when none is required), with a `oneOf` branch's. */
function objectOf(
  schema: SchemaObject,
  schemas: Record<string, SchemaObject>,
  depth: number,
): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const branch = schema.oneOf?.[0] ?? schema.anyOf?.[0];
  for (const name of branch?.required ?? []) required.add(name);
  const names = required.size > 0 ? [...required] : Object.keys(properties);
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const property = properties[name] ?? branch?.properties?.[name];
    if (property) out[name] = sampleOf(property, schemas, depth + 1, name);
  }
  return out;
}
