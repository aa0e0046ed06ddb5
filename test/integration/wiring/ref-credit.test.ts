import { expect } from 'chai';
import { randomIp } from '../../helpers/otp';
import { usePaymentsSuite, waitFor } from '../payments/support';
import { cookieOf, wiringStore, type Wiring } from './support';

/**
 * `?ref=CODE` on a store or product page (api/growth/ref.ts) is kept for the browser session and credited as
 * `creator_code` on the store page checkout (docs/growth.md, "Creator codes"; docs/store-pages.md).
 */
describe('wiring: store pages: ?ref=CODE credits the creator', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let w: Wiring;

  before(async () => {
    w = await wiringStore(suite, 'ref-credit');
  });

  it('credits the creator of a ?ref=CODE product page link for the purchase on the store checkout', async () => {
    const c = await w.newCreator({ name: 'Rawan', code: 'RAWAN42' });
    const page = await suite.server.request(`/s/${w.slug}/p/guide?lang=en&ref=RAWAN42`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(page.status, page.text).to.equal(200);
    const setCookie = page.headers.getSetCookie().join('\n');
    expect(setCookie).to.match(/^matjar_ref=RAWAN42; path=\/s\/w42-ref-credit; samesite=lax; httponly$/im);
    // The answer carries this browser's cookie: never a shared CDN copy.
    expect(page.headers.get('cache-control')).to.equal('private, no-store');
    expect(page.headers.get('etag')).to.equal(null);
    // The same page without ?ref= stays public.
    const plain = await suite.server.request(`/s/${w.slug}/p/guide?lang=en`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(plain.headers.get('cache-control')).to.match(/^public/);
    expect(plain.headers.getSetCookie()).to.deep.equal([]);

    const res = await w.postCheckout('guide', w.buyer('594800001'), { cookie: cookieOf(page) });
    const orderId = await w.payFrom(res, '594800001');
    const checkout = await suite.deps
      .knex('orders as o')
      .join('checkouts as c', 'c.id', 'o.checkout_id')
      .where('o.id', orderId)
      .first('c.creator_id', 'c.source');
    expect(checkout).to.deep.equal({ creator_id: c.id, source: 'store_page' });
    const credited = await waitFor('the commission', async () => {
      const now = await w.creator(c.id);
      return now.orders === 1 ? now : undefined;
    });
    expect(credited).to.include({ orders: 1, revenue: '80.00', commission: '8.00' });

    // A browser without the cookie credits nobody; a kept code naming no creator is ignored, not refused.
    const other = await w.postCheckout('pack', w.buyer('594800002'), { cookie: 'matjar_ref=NOBODY42' });
    const otherOrder = await w.payFrom(other, '594800002');
    const row = await suite.deps
      .knex('orders as o')
      .join('checkouts as c', 'c.id', 'o.checkout_id')
      .where('o.id', otherOrder)
      .first('c.creator_id');
    expect(row.creator_id).to.equal(null);
    expect(await w.creator(c.id)).to.include({ orders: 1 });
  });
});
