import type Joi from 'joi';

/**
 * A fast path for Joi schemas, compiled from the schema itself (so the route is still declared once).
 *
 * Joi costs about 10 µs per small object validated (a batch of 30 analytics events spent 40% of its CPU in
 * Joi, docs/performance.md). Most request schemas are plain: objects of strings with length limits,
 * integers with bounds, arrays of those. For such a schema this builds a function that checks a value
 * and returns what Joi would return for it (under the options `validate` uses: convert, unknown keys
 * allowed and stripped), or BAIL when the value is anything but plainly valid. On BAIL the caller runs
 * Joi itself, so every error message, conversion and edge case (a number sent as a string, an empty
 * string, a value Joi would convert) is Joi's own: the fast path only ever answers "valid, and this is
 * the value".
 *
 * A part of a schema this does not know (any other rule, flag, type or option) is validated by Joi alone,
 * for that part only; a schema with nothing it knows is not compiled at all (`compileSchema` returns null).
 */

export const BAIL: unique symbol = Symbol('bail');
export type Fast = (value: unknown) => unknown;

/** The options `validate` runs Joi with; the fast path reproduces exactly these. */
export const JOI_OPTIONS: Joi.ValidationOptions = {
  abortEarly: false,
  convert: true,
  allowUnknown: true,
  stripUnknown: true,
  errors: { wrap: { label: false } },
};

interface Description {
  type: string;
  flags?: Record<string, unknown>;
  rules?: { name: string; args?: Record<string, unknown> }[];
  allow?: unknown[];
  keys?: Record<string, Description>;
  items?: Description[];
  preferences?: unknown;
  [other: string]: unknown;
}

/** Flags that change nothing a value is checked against or turned into. */
const HARMLESS_FLAGS = new Set(['description', 'presence', 'label']);
const KNOWN_FIELDS = new Set([
  'type',
  'flags',
  'rules',
  'allow',
  'keys',
  'items',
  'metas',
  'examples',
  'notes',
]);

function plain(d: Description): boolean {
  if (Object.keys(d).some((k) => !KNOWN_FIELDS.has(k))) return false;
  if (d.flags && Object.keys(d.flags).some((f) => !HARMLESS_FLAGS.has(f))) return false;
  if (d.flags?.presence !== undefined && d.flags.presence !== 'required' && d.flags.presence !== 'optional')
    return false;
  return true;
}

function limits(
  d: Description,
  allowed: readonly string[],
): { min?: number; max?: number; integer: boolean } | null {
  const out: { min?: number; max?: number; integer: boolean } = { integer: false };
  for (const rule of d.rules ?? []) {
    if (!allowed.includes(rule.name)) return null;
    if (Object.keys(rule.args ?? {}).some((arg) => arg !== 'limit')) return null;
    const limit = rule.args?.limit;
    if (rule.name === 'integer') out.integer = true;
    else if (typeof limit !== 'number') return null;
    else if (rule.name === 'min') out.min = limit;
    else out.max = limit;
  }
  return out;
}

/** A check for this schema: the fast path where it can, Joi for this part alone where it cannot. */
function compilePart(schema: Joi.Schema, d: Description): Fast {
  return compileKnown(schema, d) ?? joiFor(schema);
}

function joiFor(schema: Joi.Schema): Fast {
  return (value) => {
    const { error, value: out } = schema.validate(value, JOI_OPTIONS);
    return error ? BAIL : out;
  };
}

function compileKnown(schema: Joi.Schema, d: Description): Fast | null {
  if (!plain(d)) return null;
  const allowEmpty = d.allow?.length === 1 && d.allow[0] === '';
  if (d.allow && !allowEmpty) return null;
  switch (d.type) {
    case 'string': {
      const l = limits(d, ['min', 'max']);
      if (!l) return null;
      const { min = 0, max = Infinity } = l;
      return (value) => {
        if (typeof value !== 'string') return BAIL;
        if (value === '') return allowEmpty ? value : BAIL;
        return value.length >= min && value.length <= max ? value : BAIL;
      };
    }
    case 'number': {
      if (d.allow) return null;
      const l = limits(d, ['min', 'max', 'integer']);
      if (!l) return null;
      const { min = -Infinity, max = Infinity, integer } = l;
      return (value) => {
        // Strings, -0, unsafe and non-finite numbers: Joi converts or refuses them.
        if (typeof value !== 'number' || !Number.isFinite(value) || Object.is(value, -0)) return BAIL;
        if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return BAIL;
        if (integer && !Number.isInteger(value)) return BAIL;
        return value >= min && value <= max ? value : BAIL;
      };
    }
    case 'boolean':
      if (d.allow || d.rules?.length) return null;
      return (value) => (typeof value === 'boolean' ? value : BAIL);
    case 'array': {
      if (d.allow || d.items?.length !== 1) return null;
      const l = limits(d, ['min', 'max']);
      if (!l) return null;
      const { min = 0, max = Infinity } = l;
      const itemSchema = (schema as unknown as { $_terms: { items: Joi.Schema[] } }).$_terms.items[0];
      const item = compilePart(itemSchema, d.items[0]);
      return (value) => {
        if (!Array.isArray(value) || value.length < min || value.length > max) return BAIL;
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i += 1) {
          // A hole or undefined: Joi refuses sparse arrays.
          if (value[i] === undefined) return BAIL;
          const checked = item(value[i]);
          if (checked === BAIL) return BAIL;
          out[i] = checked;
        }
        return out;
      };
    }
    case 'object': {
      if (d.allow || d.rules?.length || !d.keys) return null;
      // A default fills in an absent key, which the fast path never looks at.
      if (Object.values(d.keys).some((child) => child.flags && 'default' in child.flags)) return null;
      const children = (
        schema as unknown as { $_terms: { keys: { key: string; schema: Joi.Schema }[] | null } }
      ).$_terms.keys;
      if (!children) return null;
      const keys = new Map<string, { check: Fast; required: boolean }>();
      for (const { key: name, schema: child } of children) {
        const described = d.keys[name];
        const required = described.flags?.presence === 'required';
        keys.set(name, { check: compilePart(child, described), required });
      }
      const required = [...keys].filter(([, k]) => k.required).map(([name]) => name);
      return (value) => {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return BAIL;
        if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
          return BAIL;
        const input = value as Record<string, unknown>;
        for (const name of required)
          if (!Object.hasOwn(input, name) || input[name] === undefined) return BAIL;
        const out: Record<string, unknown> = {};
        // Input order, unknown keys left out: what Joi's stripUnknown leaves.
        for (const name of Object.keys(input)) {
          const key = keys.get(name);
          if (!key || input[name] === undefined) continue;
          const checked = key.check(input[name]);
          if (checked === BAIL) return BAIL;
          out[name] = checked;
        }
        return out;
      };
    }
    default:
      return null;
  }
}

/** The fast path of a schema, or null when nothing of it can be checked faster than Joi does. */
export function compileSchema(schema: Joi.Schema): Fast | null {
  const description = schema.describe() as Description;
  // A reference to another field or a condition on one cannot be checked one part at a time.
  if (/"(ref|whens|link)":/.test(JSON.stringify(description))) return null;
  return compileKnown(schema, description);
}
