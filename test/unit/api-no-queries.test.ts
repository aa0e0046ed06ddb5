import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The rule (docs/dashboard.md, "Code"): no SQL is written in api/. An interface file may hold
 * a connection and hand it to a service in shared/services (`listOrders(ctx.deps.knex, ...)`,
 * `readKnex.run(id, (knex) => listProducts(knex, ...))`), but it may not:
 * - import knex, objection or pg (type imports included: a file that needs their types builds queries);
 * - call a connection or transaction (`knex('orders')`, `trx(...)`, `ctx.deps.knex('orders')`);
 * - call a method of one (`knex.raw(...)`, `ctx.deps.knex.transaction(...)`);
 * - run an objection model's query (`Store.query(knex)`, `row.$query()`, `relatedQuery`, `Model.knex()`).
 */
const DRIVERS = new Set(['knex', 'objection', 'pg']);
const CONNECTION = /(^|\.)(knex|trx|db)$/;
const QUERY_METHODS = new Set(['$query', 'relatedQuery', '$relatedQuery', 'knex', 'raw', 'transaction']);

export function queriesIn(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`${fileName}:${line + 1}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (DRIVERS.has(node.moduleSpecifier.text)) at(node, `imports ${node.moduleSpecifier.text}`);
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && CONNECTION.test(callee.text)) at(node, `calls ${callee.text}(...)`);
      if (ts.isPropertyAccessExpression(callee)) {
        const receiver = callee.expression.getText(file);
        const name = callee.name.text;
        if (CONNECTION.test(receiver)) at(node, `calls ${receiver}.${name}(...)`);
        // `ctx.deps.knex('orders')` calls the property itself; `Model.knex()` and `.raw(...)` run SQL too.
        else if (QUERY_METHODS.has(name)) at(node, `calls .${name}(...)`);
        else if (name === 'query' && ts.isIdentifier(callee.expression) && /^[A-Z]/.test(receiver)) {
          at(node, `calls ${receiver}.query(...)`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function* walk(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (/\.ts$/.test(entry.name)) yield full;
  }
}

describe('no queries in api/', () => {
  it('the rule finds each form of a query written in an interface file', () => {
    const forms = [
      "import type { Knex } from 'knex';",
      "import { Model } from 'objection';",
      "await knex('orders').where('id', 1);",
      "await trx('fivem_servers').first();",
      "await ctx.deps.knex('orders').first('status');",
      "await ctx.deps\n  .knex('categories')\n  .select('id');",
      "await knex.raw('select 1');",
      'await ctx.deps.knex.transaction(async () => 1);',
      'await Store.query(deps.knex).findById(1);',
      'await user.$query(knex).patch({});',
      "await store.$relatedQuery('products');",
    ];
    for (const form of forms) expect(queriesIn('sample.ts', form), form).to.not.deep.equal([]);
  });

  it('the rule lets a file hand a connection to a service', () => {
    const allowed = [
      'await listOrders(ctx.deps.knex, storeId, filters);',
      'await ctx.deps.readKnex.run(storeId, (knex) => listProducts(knex, store, filters));',
      'const { knex, redis } = ctx.deps; await pingDatabase(knex);',
      "const q = ctx.query['embed_key'];",
    ];
    for (const form of allowed) expect(queriesIn('sample.ts', form), form).to.deep.equal([]);
  });

  it('no file under api/ writes a query: its reads and writes live in shared/services', () => {
    const files = [...walk(path.join(ROOT, 'api'))];
    expect(files.length).to.be.above(50);
    const found = files.flatMap((f) => queriesIn(path.relative(ROOT, f), fs.readFileSync(f, 'utf8')));
    expect(found).to.deep.equal([]);
  });
});
