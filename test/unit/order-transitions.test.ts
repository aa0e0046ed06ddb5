import { expect } from 'chai';
import { ORDER_STATUS, OrderStatus } from '../../db/models';
import { planStatusChange, STATUS_LABELS, TRANSITIONS } from '../../shared/services/orders/lifecycle';
import { STEPS } from '../../shared/services/orders/steps';

/** The order lifecycle's table (shared/services/orders/lifecycle.ts), without Postgres. */
describe('order lifecycle table', () => {
  const statuses = [1, 2, 3, 4, 5, 6] as OrderStatus[];

  it('allows exactly the documented moves', () => {
    expect(TRANSITIONS).to.deep.equal({
      1: [2, 3, 4, 5],
      2: [3, 4, 5, 6],
      3: [4, 5, 6],
      4: [6],
      5: [],
      6: [],
    });
  });

  it('changes nothing when the status is the one the order has', () => {
    for (const s of statuses) expect(planStatusChange(s, s)).to.deep.equal({ kind: 'unchanged', status: s });
  });

  it('refuses every move outside the table, naming the allowed statuses', () => {
    for (const from of statuses) {
      for (const to of statuses) {
        if (from === to || TRANSITIONS[from].includes(to)) continue;
        const plan = planStatusChange(from, to);
        expect(plan.kind, `${from} -> ${to}`).to.equal('refused');
        if (plan.kind !== 'refused') continue;
        if (TRANSITIONS[from].length === 0) expect(plan.message).to.match(/cannot change status/);
        for (const allowed of TRANSITIONS[from]) expect(plan.message).to.contain(STATUS_LABELS[allowed]);
      }
    }
  });

  const steps = (from: OrderStatus, to: OrderStatus, opts = {}): readonly string[] => {
    const plan = planStatusChange(from, to, opts);
    if (plan.kind !== 'change') throw new Error(`${from} -> ${to} is ${plan.kind}`);
    return plan.steps;
  };

  it('pays and fulfils an order the merchant moves on from Awaiting payment', () => {
    expect(steps(1, 2)).to.deep.equal(['review']);
    expect(steps(1, 3)).to.deep.equal(['mark-paid', 'fulfil']);
    expect(steps(1, 4)).to.deep.equal(['mark-paid', 'complete', 'fulfil']);
  });

  it('confirms the manual payment of an order under review', () => {
    expect(steps(2, 3)).to.deep.equal(['confirm-manual-payment', 'fulfil']);
    expect(steps(2, 4)).to.deep.equal(['confirm-manual-payment', 'complete', 'fulfil']);
    expect(steps(3, 4)).to.deep.equal(['complete', 'fulfil']);
  });

  it('takes back what was given on cancel and refund, refunding the money on refund', () => {
    expect(steps(1, ORDER_STATUS.CANCELLED)).to.deep.equal(['withdraw', 'return-stock']);
    expect(steps(4, ORDER_STATUS.REFUNDED)).to.deep.equal(['refund-payment', 'withdraw', 'return-stock']);
    expect(steps(2, ORDER_STATUS.REFUNDED)).to.deep.equal(['refund-payment', 'withdraw', 'return-stock']);
  });

  it('stages no fulfilment job when the fulfilment job itself completes the order', () => {
    expect(steps(3, 4, { fulfilling: true })).to.deep.equal(['complete']);
  });

  it('marks only the moves out of Awaiting payment or Under review into In progress/Completed as paid', () => {
    for (const from of statuses) {
      for (const to of TRANSITIONS[from]) {
        const plan = planStatusChange(from, to);
        if (plan.kind !== 'change') throw new Error('a move of the table is a change');
        expect(plan.paid, `${from} -> ${to}`).to.equal(from <= 2 && (to === 3 || to === 4));
      }
    }
  });

  it('has a step function for every step the table names', () => {
    const named = new Set<string>();
    for (const from of statuses) {
      for (const to of TRANSITIONS[from]) for (const s of steps(from, to)) named.add(s);
      named.add('refund-payment');
    }
    expect([...named].sort()).to.deep.equal(Object.keys(STEPS).sort());
  });
});
