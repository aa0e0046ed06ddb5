import { object, type SchemaObject } from '../../json-schema';

/**
 * The customer object of the Embed and Storefront APIs (spec: Resources, Customer), declared once: the
 * OpenAPI document's `Customer` schema (api/openapi/components.ts) and the type of customerView()
 * (`CustomerView`, `Infer<typeof customerSchema>`).
 */
const name = { type: 'string', maxLength: 100 } as const satisfies SchemaObject;

export const customerSchema = object({
  id: { type: 'integer' },
  firstName: name,
  lastName: name,
  email: { type: 'string', format: 'email' },
  phone: { type: 'string', description: 'Number without country code.' },
  country_code: { type: 'string', description: 'Digits, no plus sign.' },
});
