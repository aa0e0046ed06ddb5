import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every change of an order's status goes through the order lifecycle (shared/services/orders/
 * change-status.ts with its steps), which records the status event and the merchant's
 * `order.status_changed` webhook. This test reads the source tree so that no other file writes
 * `orders.status` itself again: an update or patch of the orders table naming `status`, or raw SQL doing so.
 * Inserting a new order (with its first status) is not a change and is not looked for.
 */
const ROOT = join(__dirname, '..', '..');
const SCANNED = ['shared', 'api', 'workers', 'scripts'];
/** The lifecycle module: the only files that may move an order's status. */
const LIFECYCLE = new Set([
  'shared/services/orders/change-status.ts',
  'shared/services/orders/steps.ts',
  'shared/services/orders/withdraw.ts',
]);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const ORDERS_TABLE = /\(\s*['"`]orders(\s+as\s+\w+)?['"`]\s*\)|\bOrder\.query\(/;
const STATUS_WRITE = /\.(update|patch|patchAndFetchById|updateAndFetchById)\(\s*\{[^}]*\bstatus\b\s*[:,}]/s;
const RAW_WRITE = /update\s+"?orders"?\s+(as\s+\w+\s+)?set\b[^;]*\bstatus\s*=/is;

/** The statements of `text` (split on semicolons) that write an order's status. */
export function orderStatusWrites(text: string): string[] {
  return text
    .split(';')
    .filter((stmt) => (ORDERS_TABLE.test(stmt) && STATUS_WRITE.test(stmt)) || RAW_WRITE.test(stmt))
    .map((stmt) => stmt.trim().replace(/\s+/g, ' ').slice(0, 160));
}

describe('order status writes', () => {
  it('finds the shapes it looks for (and not an insert or another table)', () => {
    expect(orderStatusWrites("await trx('orders').where('id', 1).update({ status: 4 });")).to.have.length(1);
    expect(orderStatusWrites('await Order.query(trx).patch({ status: 3 }).where({ id: 1 });')).to.have.length(
      1,
    );
    expect(
      orderStatusWrites("await knex.raw('update orders set status = 5 where id = ?', [1]);"),
    ).to.have.length(1);
    expect(orderStatusWrites('await Order.query(trx).insert({ store_id: 1, status: 1 });')).to.deep.equal([]);
    expect(
      orderStatusWrites("await trx('payments').where('id', 1).update({ status: 'paid' });"),
    ).to.deep.equal([]);
  });

  it('happen only in the order lifecycle module', () => {
    const found: string[] = [];
    for (const dir of SCANNED) {
      for (const file of sources(join(ROOT, dir))) {
        const rel = relative(ROOT, file).split('\\').join('/');
        if (LIFECYCLE.has(rel)) continue;
        for (const stmt of orderStatusWrites(readFileSync(file, 'utf8'))) found.push(`${rel}: ${stmt}`);
      }
    }
    expect(found, 'write through changeOrderStatus (shared/services/orders/change-status.ts)').to.deep.equal(
      [],
    );
  });
});
