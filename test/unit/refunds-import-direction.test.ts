import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

/**
 * Refunds and orders import in one direction (shared/services/refunds/CONTEXT.md): the orders domain asks
 * for refunds (its `refund-payment` step, `requestRefund`) and withdraws the goods once one succeeded;
 * the refunds domain keeps the refund's own state machine and never imports the orders domain, not even a
 * type (what follows a success is handed to its job: `sendRefund`'s `afterSucceeded`).
 */
const ROOT = path.resolve(__dirname, '../..');
const REFUNDS = path.join(ROOT, 'shared/services/refunds');
const ORDERS = path.join(ROOT, 'shared/services/orders');

function importsOf(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const found = [...source.matchAll(/(?:import|export)[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)];
  return found
    .map((m) => m[1] ?? m[2]!)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.resolve(path.dirname(file), spec));
}

describe('refunds never import orders', () => {
  it('no file of shared/services/refunds imports from shared/services/orders', () => {
    const files = readdirSync(REFUNDS).filter((f) => f.endsWith('.ts'));
    expect(files.length).to.be.above(5);
    const offending = files.flatMap((f) =>
      importsOf(path.join(REFUNDS, f))
        .filter((target) => target === ORDERS || target.startsWith(`${ORDERS}${path.sep}`))
        .map((target) => `${f} -> ${path.relative(ROOT, target)}`),
    );
    expect(offending).to.deep.equal([]);
  });

  it('the check sees an import of orders when there is one (the orders side imports refunds)', () => {
    const steps = importsOf(path.join(ORDERS, 'steps.ts'));
    expect(steps.some((t) => t.startsWith(`${REFUNDS}${path.sep}`))).to.equal(true);
  });
});
