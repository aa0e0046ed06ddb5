import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';

/**
 * The import graph of shared/, api/ and workers/, read with the TypeScript compiler's own pre-processor
 * (`ts.preProcessFile`: `import`, `import type`, `export ... from`, `import()` and `require()`).
 *
 * 1. Domains import in one direction. A domain is a folder directly under shared/services; a file there
 *    may import another domain's file, but the folders must not import each other in a loop. Type-only
 *    imports count: a type is a dependency of the design as much as a function is.
 *    The loops that remain are listed in KNOWN_BACK_EDGES, each with the file that makes it. The list only
 *    shrinks: the test fails on a loop not in the list and on a listed edge that no longer exists (take
 *    it out of the list then). Each entry goes the wrong way against the layering below, bottom first.
 * 2. No knex in api/: no file under api/ imports 'knex', not even `import type { Knex }`. The rule is "no
 *    queries in api/" (docs/dashboard.md, "Code"), and an interface file that hands a connection to a
 *    service needs no knex type (the connection's type comes from `ctx.deps`); query-builder use is
 *    checked by test/unit/api-no-queries.test.ts.
 */
const ROOT = path.resolve(__dirname, '../..');
const SERVICES = path.join(ROOT, 'shared/services');

/** The layering the remaining loops break, bottom first (what a folder may import lies to its left). */
export const LAYERS = [
  'catalogue',
  'invoices',
  'emails',
  'files',
  'fulfilment',
  'growth',
  'coupons',
  'fivem',
  'refunds',
  'orders',
  'fraud',
  'checkout',
  'subscriptions',
  'account',
  'einvoicing',
  'payments',
];

/** `from -> to`: the folder edges that still close a loop, with why they are not cut yet. */
export const KNOWN_BACK_EDGES: Record<string, string> = {
  'catalogue -> subscriptions':
    'catalogue/product-writes.ts ends subscriptions of a plan it removes (subscriptions/terms.ts)',
  'invoices -> einvoicing':
    'invoices/issue.ts, credit-notes.ts and read.ts sign and read the ZATCA chain (einvoicing/chain.ts, views.ts), which reads invoice amounts back',
  'fulfilment -> orders': 'fulfilment/fulfil.ts moves the order status (orders/change-status.ts)',
};

function* walk(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.name.endsWith('.ts')) yield full;
  }
}

/** The module specifiers a file imports, type-only and dynamic ones included. */
export function specifiersOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

function resolveRelative(from: string, spec: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  return null;
}

/** Domain folder of a file under shared/services, or null for files outside a folder there. */
function domainOf(file: string): string | null {
  const rel = path.relative(SERVICES, file).split(path.sep);
  return rel.length > 1 && rel[0] !== '..' ? rel[0]! : null;
}

/** Folder edges `from -> to` with the files that make each. */
function domainEdges(): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const file of walk(SERVICES)) {
    const from = domainOf(file);
    if (!from) continue;
    for (const spec of specifiersOf(fs.readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolveRelative(file, spec);
      const to = target && domainOf(target);
      if (!to || to === from) continue;
      const key = `${from} -> ${to}`;
      edges.set(key, [...(edges.get(key) ?? []), path.relative(SERVICES, file)]);
    }
  }
  return edges;
}

/** One cycle of the graph as `a -> b -> ... -> a`, or null when it has none. */
export function findCycle(edges: Iterable<string>): string[] | null {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const [from, to] = edge.split(' -> ') as [string, string];
    next.set(from, [...(next.get(from) ?? []), to]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (state.get(to) === 'open') return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of [...next.keys()].sort()) {
    if (!state.has(node)) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return null;
}

describe('import graph', () => {
  it('the reader sees every form of import, and the cycle finder finds a loop and passes a chain', () => {
    const source = [
      "import type { Knex } from 'knex';",
      "import { a } from './a';",
      "export { b } from '../b';",
      "const c = await import('./c');",
      "const d = require('./d');",
    ].join('\n');
    expect(specifiersOf(source)).to.have.members(['knex', './a', '../b', './c', './d']);
    expect(findCycle(['refunds -> payments', 'payments -> orders', 'orders -> refunds'])).to.deep.equal([
      'orders',
      'refunds',
      'payments',
      'orders',
    ]);
    expect(findCycle(['refunds -> payments', 'payments -> orders'])).to.equal(null);
  });

  it('domain folders under shared/services import each other in no loop but the listed ones', () => {
    const edges = domainEdges();
    expect(edges.size).to.be.above(20);
    const remaining = [...edges.keys()].filter((edge) => !(edge in KNOWN_BACK_EDGES));
    const cycle = findCycle(remaining);
    expect(cycle && cycle.join(' -> '), 'a loop between domain folders').to.equal(null);
  });

  it('each listed loop still exists and goes against the layering (cut one: take it off the list)', () => {
    const edges = domainEdges();
    for (const edge of Object.keys(KNOWN_BACK_EDGES)) {
      expect(edges.has(edge), `${edge} is gone: remove it from KNOWN_BACK_EDGES`).to.equal(true);
      const [from, to] = edge.split(' -> ') as [string, string];
      expect(LAYERS.indexOf(from), edge).to.be.below(LAYERS.indexOf(to));
      expect(LAYERS.indexOf(from), edge).to.be.at.least(0);
    }
  });

  it("no file under api/ imports 'knex' (type-only imports included)", () => {
    const files = [...walk(path.join(ROOT, 'api'))];
    expect(files.length).to.be.above(50);
    const found = files.filter((f) => specifiersOf(fs.readFileSync(f, 'utf8')).includes('knex'));
    expect(found.map((f) => path.relative(ROOT, f))).to.deep.equal([]);
  });

  it('api/ and workers/ never import each other; shared/ imports neither', () => {
    const offending: string[] = [];
    for (const top of ['api', 'workers', 'shared']) {
      for (const file of walk(path.join(ROOT, top))) {
        for (const spec of specifiersOf(fs.readFileSync(file, 'utf8'))) {
          if (!spec.startsWith('.')) continue;
          const target = path.relative(ROOT, path.resolve(path.dirname(file), spec)).split(path.sep)[0];
          const forbidden = top === 'api' ? ['workers'] : top === 'workers' ? ['api'] : ['api', 'workers'];
          if (target && forbidden.includes(target)) offending.push(`${path.relative(ROOT, file)} -> ${spec}`);
        }
      }
    }
    expect(offending).to.deep.equal([]);
  });
});
