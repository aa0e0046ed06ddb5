import type { ComponentsObject, Reference, SchemaObject } from './types';

/** Building blocks of the document's schemas, kept apart from components.ts so schemas.ts can use them. */

export const ref = (kind: keyof ComponentsObject, name: string): Reference => ({
  $ref: `#/components/${kind}/${name}`,
});
export const schemaRef = (name: string): SchemaObject => ({ $ref: `#/components/schemas/${name}` });

/** Shorthand for an object schema whose listed properties are all required unless named in `optional`. */
export { object } from '../../shared/json-schema';
