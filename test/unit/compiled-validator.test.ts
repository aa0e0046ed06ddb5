import { expect } from 'chai';
import Joi from 'joi';
import { BAIL, compileSchema, JOI_OPTIONS } from '../../api/middleware/compiled-validator';
import { allRoutes } from '../../api/routes';

/**
 * The compiled fast path of request schemas (api/middleware/compiled-validator.ts) may only ever say
 * "valid, and this is the value": for every value it does not hand back to Joi, Joi must accept it and
 * return the same value. Checked against every schema of every route, on values generated from each
 * schema's own description: valid ones, and every kind of wrong one a client could send.
 */

interface Described {
  type: string;
  flags?: Record<string, unknown>;
  rules?: { name: string; args?: { limit?: unknown } }[];
  allow?: unknown[];
  keys?: Record<string, Described>;
  items?: Described[];
}

/** A small seeded generator (mulberry32), so a failure is reproducible. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function limitOf(d: Described, name: string): number | undefined {
  const limit = d.rules?.find((r) => r.name === name)?.args?.limit;
  return typeof limit === 'number' ? limit : undefined;
}

const ODD_VALUES: unknown[] = [
  null,
  '',
  ' ',
  '12',
  '-0',
  'true',
  0,
  -0,
  1.5,
  -1,
  1e20,
  true,
  false,
  [],
  {},
  ['a'],
];

/** A value for this schema: mostly a valid one, often a near miss, sometimes anything. */
function generate(d: Described, rnd: () => number, depth = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  if (rnd() < 0.08) return pick(ODD_VALUES);
  switch (d.type) {
    case 'string': {
      const min = limitOf(d, 'min') ?? 1;
      const max = Math.min(limitOf(d, 'max') ?? 40, 60);
      const length = rnd() < 0.1 ? max + 1 : min + Math.floor(rnd() * Math.max(1, max - min + 1));
      const alphabet = rnd() < 0.2 ? 'أبت ١٢٣\u0000é' : 'abcXYZ019-_.';
      return Array.from({ length }, () => pick([...alphabet])).join('');
    }
    case 'number': {
      const min = limitOf(d, 'min') ?? -1_000;
      const max = limitOf(d, 'max') ?? 1_000;
      const value = min + Math.floor(rnd() * (Math.min(max, min + 10_000) - min + 1));
      return pick([value, value, min, max, min - 1, max + 1, value + 0.5, String(value)]);
    }
    case 'boolean':
      return pick([true, false, 'true', 1]);
    case 'array': {
      const max = Math.min(limitOf(d, 'max') ?? 5, 8);
      const length = rnd() < 0.1 ? max + 1 : Math.floor(rnd() * (max + 1));
      return Array.from({ length }, () => (d.items?.[0] ? generate(d.items[0], rnd, depth + 1) : 'x'));
    }
    case 'object': {
      if (!d.keys || depth > 4) return rnd() < 0.5 ? {} : { free: 'form', n: 1 };
      const out: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(d.keys)) {
        const required = child.flags?.presence === 'required';
        if (rnd() < (required ? 0.95 : 0.6)) out[name] = generate(child, rnd, depth + 1);
      }
      if (rnd() < 0.2) out.unknown_key = 'stripped';
      if (rnd() < 0.05) out[String('constructor')] = 'x';
      return out;
    }
    default:
      return pick(ODD_VALUES);
  }
}

describe('compiled request validation: the same answer as Joi', () => {
  const schemas = allRoutes({ nodeEnv: 'development', sandboxEnabled: true }).flatMap((route) =>
    (['params', 'query', 'body'] as const).flatMap((part) => {
      const schema = route.request?.[part];
      return schema ? [{ name: `${route.method} ${route.path} ${part}`, schema }] : [];
    }),
  );

  it('accepts only what Joi accepts, with the value Joi returns, for every route schema', () => {
    let compiled = 0;
    let takenFast = 0;
    const wrong: string[] = [];
    schemas.forEach(({ name, schema }, index) => {
      const fast = compileSchema(schema);
      if (!fast) return;
      compiled += 1;
      const rnd = random(index + 1);
      const description = schema.describe() as Described;
      for (let i = 0; i < 150; i += 1) {
        const value = generate(description, rnd);
        const quick = fast(value);
        if (quick === BAIL) continue;
        takenFast += 1;
        const { error, value: joi } = schema.validate(value, JOI_OPTIONS);
        if (error || JSON.stringify(joi) !== JSON.stringify(quick)) {
          wrong.push(`${name}: ${JSON.stringify(value)} -> ${JSON.stringify(quick)} / ${error?.message}`);
        }
      }
    });
    expect(wrong.slice(0, 5)).to.deep.equal([]);
    // Most schemas are plain enough to compile, and the generated values exercise the fast path.
    expect(compiled).to.be.greaterThan(schemas.length / 2);
    expect(takenFast).to.be.greaterThan(compiled * 20);
  });

  it('hands every value it cannot vouch for to Joi', () => {
    const fast = compileSchema(
      Joi.object({
        name: Joi.string().max(5).required(),
        n: Joi.number().integer().min(1).max(9),
        price: Joi.number().min(0),
        tags: Joi.array().items(Joi.string().max(3)).max(2),
        note: Joi.string().allow('').max(3),
      }),
    )!;
    expect(fast({ name: 'abc', n: 3, tags: ['x'], note: '', extra: 1 })).to.deep.equal({
      name: 'abc',
      n: 3,
      tags: ['x'],
      note: '',
    });
    for (const value of [
      {},
      { name: '' },
      { name: 'abcdef' },
      { name: 'a', n: '3' },
      { name: 'a', n: 3.5 },
      { name: 'a', n: 10 },
      { name: 'a', n: -0 },
      { name: 'a', price: '3' },
      { name: 'a', price: -0.5 },
      { name: 'a', tags: ['x', 'y', 'z'] },
      { name: 'a', tags: [1] },
      { name: 'a', note: 'long' },
      [],
      null,
      'a',
      Object.assign(Object.create({ name: 'inherited' }), {}),
    ]) {
      expect(fast(value), JSON.stringify(value)).to.equal(BAIL);
    }
  });

  it('is not compiled where a part depends on another field or fills in a default', () => {
    expect(compileSchema(Joi.object({ a: Joi.number(), b: Joi.number().max(Joi.ref('a')) }))).to.equal(null);
    expect(compileSchema(Joi.object({ a: Joi.string().default('x') }))).to.equal(null);
    expect(compileSchema(Joi.object({ a: Joi.string().trim() }))).to.not.equal(null);
    // A part it does not know is checked by Joi alone: a trimmed string comes back trimmed.
    expect(compileSchema(Joi.object({ a: Joi.string().trim() }))!({ a: ' x ' })).to.deep.equal({ a: 'x' });
  });
});
