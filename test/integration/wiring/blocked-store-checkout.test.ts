import { expect } from 'chai';
import { usePaymentsSuite } from '../payments/support';
import { wiringStore, type Wiring } from './support';

/**
 * The store page checkout applies the store's block lists and limits (docs/fraud.md, "Block lists",
 * "Limits") before anything is created: a blocked e-mail domain or address range, or a buyer past the daily
 * order limit (ten forms at once, a limit of two), gets the form again with one neutral message.
 */
describe('wiring: store page checkout: block lists and limits', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let w: Wiring;

  before(async () => {
    w = await wiringStore(suite, 'blocked-store-checkout');
  });

  it('refuses a blocked e-mail or address on the store page checkout with a neutral message, creating nothing', async () => {
    const blocked = await w.merchant('PATCH', '/shawarma/store', {
      settings: { blocked_emails: ['@banned.w42.test'], blocked_ips: ['198.51.100.0/24'] },
    });
    expect(blocked.status, blocked.text).to.equal(200);
    const before = await suite.deps
      .knex('checkouts')
      .where('store_id', w.m.id)
      .count<{ n: string }[]>('* as n');

    const byEmail = await w.postCheckout('guide', w.buyer('594800031', 'thief@banned.w42.test'));
    const byIp = await w.postCheckout('guide', w.buyer('594800032'), { ip: '198.51.100.77' });
    const arabic = await w.postCheckout('guide', w.buyer('594800033'), { ip: '198.51.100.78', lang: 'ar' });
    for (const res of [byEmail, byIp, arabic]) {
      expect(res.status, res.text).to.equal(403);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.headers.get('location')).to.equal(null);
      // The form again, the buyer's details kept, the refusal without its reason.
      expect(res.text).to.contain('<form').and.to.contain('value="Salem"');
      expect(res.text).to.not.match(/198\.51|blocked_|block list|ip address/i);
    }
    // The one message at the top says nothing of why, and is the same for both rules.
    const alertOf = (html: string) => /<p class="alert" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
    expect(alertOf(byEmail.text)).to.equal('This checkout cannot be completed.');
    expect(alertOf(byIp.text)).to.equal('This checkout cannot be completed.');
    expect(alertOf(arabic.text)).to.equal('لا يمكن إتمام هذا الطلب');

    const after = await suite.deps
      .knex('checkouts')
      .where('store_id', w.m.id)
      .count<{ n: string }[]>('* as n');
    expect(after[0]!.n).to.equal(before[0]!.n);
    const orders = await suite.deps
      .knex('orders')
      .where('store_id', w.m.id)
      .whereIn('customer_phone', ['594800031', '594800032', '594800033'])
      .count<{ n: string }[]>('* as n');
    expect(Number(orders[0]!.n)).to.equal(0);
    // The merchant sees each refusal with the rule that matched.
    const refusals = await suite.deps
      .knex('checkout_refusals')
      .where('store_id', w.m.id)
      .orderBy('id')
      .select('rule', 'source');
    expect(refusals.map((r) => r.rule)).to.deep.equal(['blocked_email_domain', 'blocked_ip', 'blocked_ip']);
    expect(refusals.every((r) => r.source === 'store_page')).to.equal(true);
  });

  it('holds a daily order limit on the store page checkout when ten of one buyer’s forms arrive at once', async () => {
    const limited = await w.merchant('PATCH', '/shawarma/store', {
      settings: { max_orders_per_buyer_per_day: 2 },
    });
    expect(limited.status, limited.text).to.equal(200);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => w.postCheckout('pack', w.buyer('594800051'))),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([303, 303, 403, 403, 403, 403, 403, 403, 403, 403]);
    for (const refused of answers.filter((a) => a.status === 403)) {
      expect(/<p class="alert" role="alert">([^<]*)<\/p>/.exec(refused.text)?.[1]).to.equal(
        'This checkout cannot be completed.',
      );
    }
    const opened = await suite.deps
      .knex('checkouts')
      .where({ store_id: w.m.id, customer_phone: '594800051' })
      .count<{ n: string }[]>('* as n');
    expect(Number(opened[0]!.n)).to.equal(2);
    const rules = await suite.deps
      .knex('checkout_refusals')
      .where({ store_id: w.m.id, rule: 'max_orders_per_buyer_per_day', source: 'store_page' })
      .count<{ n: string }[]>('* as n');
    expect(Number(rules[0]!.n)).to.equal(8);
  });
});
