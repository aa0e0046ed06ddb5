/**
 * JSON Schema 2020-12 as the OpenAPI document writes it (api/openapi/types.ts re-exports these), and the
 * TypeScript type a schema describes: an answer is declared once, as its schema, and the type of what a
 * view returns is `Infer<typeof schema>` (api/http/README.md, "Answers"). Arrays are readonly so a schema
 * written as a literal keeps its literal types.
 */

export type JsonType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

export interface SchemaObject {
  $ref?: string;
  type?: JsonType | readonly JsonType[];
  title?: string;
  description?: string;
  format?: string;
  properties?: Readonly<Record<string, SchemaObject>>;
  required?: readonly string[];
  additionalProperties?: boolean | SchemaObject;
  items?: SchemaObject;
  enum?: ReadonlyArray<string | number | boolean | null>;
  const?: string | number | boolean | null;
  default?: unknown;
  examples?: readonly unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  oneOf?: readonly SchemaObject[];
  anyOf?: readonly SchemaObject[];
  allOf?: readonly SchemaObject[];
}

type Primitive<T> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? unknown[]
          : T extends 'object'
            ? object
            : never;

/** `null` when the schema's `type` lists it (`['string', 'null']`). */
type NullIn<S> = S extends { type: readonly (infer T)[] } ? ('null' extends T ? null : never) : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<P, R> = Simplify<
  { -readonly [K in keyof P & R]: Infer<P[K]> } & {
    -readonly [K in Exclude<keyof P, R>]?: Infer<P[K]>;
  }
>;

/**
 * The type of the values `S` allows, for schemas written as literals (`as const satisfies SchemaObject`,
 * or built by `object()`): `const`, `enum`, `oneOf`/`anyOf`, objects with `properties` and `required`,
 * arrays with `items`, and the primitive types. A schema typed only as `SchemaObject` (or a `$ref`) says
 * nothing at compile time: `unknown`; an object whose members are not known at compile time: `object`.
 */
export type Infer<S> = S extends { const: infer C }
  ? C
  : S extends { enum: ReadonlyArray<infer E> }
    ? E | NullIn<S>
    : S extends { oneOf: ReadonlyArray<infer U> }
      ? Infer<U>
      : S extends { anyOf: ReadonlyArray<infer U> }
        ? Infer<U>
        : S extends { properties: infer P; required: ReadonlyArray<infer R> }
          ? string extends keyof P
            ? object
            : ObjectOf<P, R> | NullIn<S>
          : S extends { items: infer I }
            ? Infer<I>[] | NullIn<S>
            : S extends { type: infer T }
              ? T extends readonly (infer U)[]
                ? Primitive<U>
                : Primitive<T>
              : unknown;

/** An object schema whose members are all required except `optional`, typed so `Infer` reads it. */
export interface ObjectSchema<P extends Record<string, SchemaObject>, R extends string> extends SchemaObject {
  type: 'object';
  properties: P;
  required: R[];
}

/** An object schema: every member is required except those named in `optional`. */
export function object<const P extends Record<string, SchemaObject>, const O extends string = never>(
  properties: P,
  optional: readonly O[] = [],
): ObjectSchema<P, Exclude<keyof P & string, O>> {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter(
      (k): k is Exclude<keyof P & string, O> => !(optional as readonly string[]).includes(k),
    ),
  };
}
