import { expect } from 'chai';
import { randomIp } from '../../helpers/otp';
import { chooseInSandbox } from '../fraud/support';
import { usePaymentsSuite, waitFor } from '../payments/support';
import { cookieOf, wiringStore, type Wiring } from './support';

/**
 * The store page checkout binds the goods to the browser that submitted its form (shared/services/reveal;
 * docs/store-pages.md, "The hosted checkout"): the 303 to the payment page carries the reveal cookie, so
 * whoever opens that payment address first (a leaked link, a shared screen) never takes the goods.
 */
describe('wiring: the store page checkout binds the goods to its browser', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite();
  let w: Wiring;

  before(async () => {
    w = await wiringStore(suite, 'reveal');
  });

  const open = (path: string, cookie?: string) =>
    suite.server.request(path, {
      redirect: 'manual',
      headers: { 'X-Forwarded-For': randomIp(), ...(cookie ? { Cookie: cookie } : {}) },
    });

  it('sets the reveal cookie on the checkout’s answer; a stranger who opens the payment page first sees no key', async () => {
    const res = await w.postCheckout('key', w.buyer('594800041'));
    expect(res.status, res.text).to.equal(303);
    const setCookie = res.headers.getSetCookie();
    expect(setCookie).to.have.length(1);
    expect(setCookie[0]).to.match(
      /^matjar_reveal_\d+=[A-Za-z0-9_-]{40,}; Path=\/pay\/; HttpOnly; SameSite=Lax; Max-Age=7200$/,
    );
    const mine = cookieOf(res);
    const location = new URL(res.headers.get('location')!, suite.server.url);

    // The stranger comes first: the checkout is bound already, so no cookie for them.
    const strangerFirst = await open(location.pathname);
    expect(strangerFirst.status, strangerFirst.text).to.equal(200);
    expect(strangerFirst.headers.getSetCookie()).to.deep.equal([]);

    const paid = await chooseInSandbox(suite.server, location.toString(), 'paid');
    expect(paid.status, paid.text).to.equal(200);
    const code = await waitFor('the sold key', async () => {
      const row = await suite.deps
        .knex('product_codes as pc')
        .join('order_items as oi', 'oi.id', 'pc.order_item_id')
        .join('orders as o', 'o.id', 'oi.order_id')
        .where({ 'o.store_id': w.m.id, 'o.customer_phone': '594800041', 'pc.status': 'sold' })
        .first('pc.code');
      return row?.code as string | undefined;
    });
    const buyerPage = await waitFor('the key on the buyer’s page', async () => {
      const page = await open(location.pathname, mine);
      return page.text.includes(code) ? page : undefined;
    });
    expect(buyerPage.text).to.contain('data-goods');
    const strangerPage = await open(location.pathname);
    expect(strangerPage.status).to.equal(200);
    expect(strangerPage.text).to.not.contain(code);
    expect(strangerPage.text).to.not.contain('data-goods');
  });
});
