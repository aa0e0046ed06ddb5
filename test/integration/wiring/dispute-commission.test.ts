import { expect } from 'chai';
import { chooseInSandbox } from '../fraud/support';
import { usePaymentsSuite, waitFor } from '../payments/support';
import { wiringStore, type Wiring } from './support';

/**
 * A dispute (docs/fraud.md, "Disputes") takes back what the disputed order still holds of its creator’s
 * revenue and commission, with a `creator.commission` event, once under duplicate webhooks (docs/growth.md).
 */
describe('wiring: disputes: the creator’s commission is taken back', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let w: Wiring;

  before(async () => {
    w = await wiringStore(suite, 'dispute-commission');
  });

  it('takes a creator’s revenue and commission back when the order is disputed, once under a duplicate', async () => {
    const c = await w.newCreator({ name: 'Fahad', code: 'FAHAD42', discount_percent: '5' });
    const res = await w.postCheckout('guide', { ...w.buyer('594800011'), creator_code: 'fahad42' });
    expect(res.status, res.text).to.equal(303);
    const location = new URL(res.headers.get('location')!, suite.server.url).toString();
    const orderId = await w.payFrom(res, '594800011');
    await waitFor('the commission', async () => ((await w.creator(c.id)).orders === 1 ? true : undefined));
    expect(await w.creator(c.id)).to.include({ revenue: '76.00', commission: '7.60' });

    const disputes = await Promise.all([
      chooseInSandbox(suite.server, location, 'disputed'),
      chooseInSandbox(suite.server, location, 'disputed'),
    ]);
    for (const d of disputes) expect(d.status, d.text).to.be.oneOf([200, 409]);
    const after = await waitFor('the reversal', async () => {
      const now = await w.creator(c.id);
      return now.commission === '0.00' ? now : undefined;
    });
    expect(after).to.include({ revenue: '0.00', commission: '0.00' });
    const ledger = await suite.deps
      .knex('creator_commissions')
      .where({ order_id: orderId })
      .orderBy('id')
      .select('kind', 'revenue_minor', 'commission_minor');
    expect(ledger.map((l) => [l.kind, Number(l.revenue_minor), Number(l.commission_minor)])).to.deep.equal([
      ['earned', 7_600, 760],
      ['reversed', -7_600, -760],
    ]);
    const events = await waitFor('the reversal’s webhook', async () => {
      const rows: { payload: { data: { kind: string; order_id: number; commission: string } } }[] =
        await suite.deps
          .knex('merchant_webhook_deliveries')
          .where({ store_id: w.m.id, event_type: 'creator.commission' })
          .orderBy('id')
          .select('payload');
      const mine = rows.map((r) => r.payload.data).filter((d) => d.order_id === orderId);
      return mine.length === 2 ? mine : undefined;
    });
    expect(events.map((e) => [e.kind, e.commission])).to.deep.equal([
      ['earned', '7.60'],
      ['reversed', '-7.60'],
    ]);
  });
});
