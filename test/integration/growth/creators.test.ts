import { expect } from 'chai';
import { commissionEvent, reverseCommissionForDispute } from '../../../shared/services/growth/creator-ledger';
import { usePaymentsSuite } from '../payments/support';
import {
  deliveredData,
  embedCheckout,
  growthStore,
  GrowthStore,
  hookEndpoint,
  merchant,
  payCheckout,
  waitFor,
} from './support';

interface CreatorBody {
  id: number;
  code: string;
  orders: number;
  revenue: string;
  commission: string;
  page_url?: string;
}

/**
 * Creator codes (docs/growth.md): credited by `creator_code` or a `coupon_code` equal to the code, a
 * commission per paid order, taken back in proportion by a partial refund; the private page and the CSV.
 */
describe('Growth: creator codes and commissions', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();
  let g: GrowthStore;

  before(async () => {
    g = await growthStore(suite);
    await hookEndpoint(suite, g, ['creator.commission']);
  });

  const creator = async (id: number) => {
    const res = await merchant(suite, g, 'GET', `/shawarma/creators/${id}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as CreatorBody;
  };
  const open = async (body: Record<string, unknown>, phone: string) => {
    const res = await embedCheckout(suite, g, {
      product_id: g.products.ebook,
      customer_phone: phone,
      ...body,
    });
    expect(res.status, res.text).to.equal(200);
    return res.body.data as { amount: string; checkout_url: string; discount_amount: string };
  };

  it('credits a paid order through creator_code, then takes a partial refund’s share back in proportion', async () => {
    const created = await merchant(suite, g, 'POST', '/shawarma/creators', {
      name: 'Noura Plays',
      code: 'NOURA',
      commission_percent: 10,
      discount_percent: '5',
    });
    expect(created.status, created.text).to.equal(201);
    const c = created.body.data as CreatorBody;
    expect(c.page_url).to.match(/\/creators\/[A-Za-z0-9_-]{20,}$/);
    expect(c).to.include({ orders: 0, revenue: '0.00', commission: '0.00' });

    // The code in any case; the creator's 5% discount applies without a coupon.
    const checkout = await open({ creator_code: 'noura' }, '594400011');
    expect(checkout.amount).to.equal('95.00');
    const orderId = await payCheckout(suite, g, checkout.checkout_url);
    expect(await creator(c.id)).to.include({ orders: 1, revenue: '95.00', commission: '9.50' });

    // 38.00 of 95.00 back (40%): revenue 57.00, commission 9.50 - 3.80 = 5.70.
    const refund = await merchant(suite, g, 'POST', `/shawarma/orders/${orderId}/refunds`, {
      amount: '38.00',
    });
    expect(refund.status, refund.text).to.be.oneOf([200, 201, 202]);
    const after = await waitFor('the refund’s share taken back', async () => {
      const now = await creator(c.id);
      return now.revenue !== '95.00' ? now : undefined;
    });
    expect(after).to.include({ orders: 1, revenue: '57.00', commission: '5.70' });

    // The rest: nothing is left of either.
    const rest = await merchant(suite, g, 'POST', `/shawarma/orders/${orderId}/refunds`, { amount: '57.00' });
    expect(rest.status, rest.text).to.be.oneOf([200, 201, 202]);
    const zero = await waitFor('the whole refund taken back', async () => {
      const now = await creator(c.id);
      return now.revenue === '0.00' ? now : undefined;
    });
    expect(zero).to.include({ orders: 1, revenue: '0.00', commission: '0.00' });
    // Each move of the ledger is a creator.commission event.
    const events = (await deliveredData(suite, g, 'creator.commission')).filter(
      (d) => d.order_id === orderId,
    );
    expect(events.map((e) => [e.kind, e.revenue, e.commission, e.code])).to.deep.equal([
      ['earned', '95.00', '9.50', 'NOURA'],
      ['reversed', '-38.00', '-3.80', 'NOURA'],
      ['reversed', '-57.00', '-5.70', 'NOURA'],
    ]);
  });

  it('a coupon_code equal to a creator’s code credits the creator; an unknown creator_code is a 422', async () => {
    const created = await merchant(suite, g, 'POST', '/shawarma/creators', {
      name: 'Fahad',
      code: 'FAHAD7',
      commission_percent: '12.5',
    });
    const c = created.body.data as CreatorBody;
    const checkout = await open({ coupon_code: 'fahad7' }, '594400012');
    expect(checkout.amount).to.equal('100.00');
    await payCheckout(suite, g, checkout.checkout_url);
    expect(await creator(c.id)).to.include({ orders: 1, revenue: '100.00', commission: '12.50' });

    const unknown = await embedCheckout(suite, g, { product_id: g.products.ebook, creator_code: 'NOBODY' });
    expect(unknown.status, unknown.text).to.equal(422);
    expect(unknown.body.errors).to.have.key('creator_code');
    // An unpaid checkout credits nobody.
    await open({ creator_code: 'FAHAD7' }, '594400013');
    expect((await creator(c.id)).orders).to.equal(1);
  });

  it('refuses a code another creator has (any case) and bad percentages, each field named', async () => {
    await merchant(suite, g, 'POST', '/shawarma/creators', {
      name: 'A',
      code: 'SAMECODE',
      commission_percent: 5,
    });
    const dup = await merchant(suite, g, 'POST', '/shawarma/creators', {
      name: 'B',
      code: 'samecode',
      commission_percent: 150,
    });
    expect(dup.status, dup.text).to.equal(422);
    expect(dup.body.errors).to.have.key('commission_percent');
    const dup2 = await merchant(suite, g, 'POST', '/shawarma/creators', {
      name: 'B',
      code: 'samecode',
      commission_percent: 5,
    });
    expect(dup2.status, dup2.text).to.equal(422);
    expect(dup2.body.errors).to.have.key('code');
  });

  it('the private page shows orders, revenue and commission by month; the payout CSV guards formulas', async () => {
    const created = await merchant(suite, g, 'POST', '/shawarma/creators', {
      name: '=HYPERLINK("http://127.0.0.1/x")',
      code: 'PAGE1',
      commission_percent: 20,
    });
    const c = created.body.data as CreatorBody;
    const checkout = await open({ creator_code: 'PAGE1' }, '594400014');
    await payCheckout(suite, g, checkout.checkout_url);

    const url = new URL(c.page_url!);
    const page = await suite.server.request(`${url.pathname}?lang=ar`);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('dir="rtl"');
    const month = new Date().toISOString().slice(0, 7);
    expect(page.text).to.include(month);
    expect(page.text).to.include('20.00 SAR');
    expect(page.text).to.include('100.00 SAR');
    expect(page.text).to.not.include('<a href="http://127.0.0.1/x"');
    expect((await suite.server.request('/creators/not-a-real-secret-at-all-000')).status).to.equal(404);

    const csv = await merchant(suite, g, 'GET', `/shawarma/creators/payouts.csv?month=${month}`);
    expect(csv.status, csv.text).to.equal(200);
    expect(csv.text.replace(/^\uFEFF/, '').split('\r\n')[0]).to.equal(
      'creator_id,name,code,month,orders,revenue,commission,currency',
    );
    expect(csv.text).to.include(
      `${c.id},"'=HYPERLINK(""http://127.0.0.1/x"")",PAGE1,${month},1,100.00,20.00,SAR`,
    );

    // Rotating the page address closes the old one.
    const rotated = await merchant(suite, g, 'POST', `/shawarma/creators/${c.id}/page`);
    expect(rotated.status, rotated.text).to.equal(200);
    expect((await suite.server.request(url.pathname)).status).to.equal(404);
    // With a ledger, DELETE deactivates: the code credits nobody any more.
    const deleted = await merchant(suite, g, 'DELETE', `/shawarma/creators/${c.id}`);
    expect(deleted.body.data).to.include({ deleted: false, active: false });
    const refused = await embedCheckout(suite, g, { product_id: g.products.ebook, creator_code: 'PAGE1' });
    expect(refused.status).to.equal(422);
  });

  it('a Merchant API order with creator_code credits the creator; a dispute takes back what is left, once', async () => {
    const created = await merchant(suite, g, 'POST', '/shawarma/creators', {
      name: 'Desk',
      code: 'DESK44',
      commission_percent: 10,
    });
    const c = created.body.data as CreatorBody;
    const res = await merchant(suite, g, 'POST', '/shawarma/orders', {
      product_id: g.products.ebook,
      quantity: 1,
      customer_first_name: 'Walk',
      customer_last_name: 'In',
      customer_email: 'walkin@i44.test',
      customer_phone: '594400015',
      customer_country_code: '966',
      creator_code: 'desk44',
    });
    expect(res.status, res.text).to.be.oneOf([200, 201]);
    const orderId = await payCheckout(suite, g, (res.body.data as { checkout_url: string }).checkout_url);
    expect(await creator(c.id)).to.include({ orders: 1, revenue: '100.00', commission: '10.00' });

    // The disputes flow's call (docs/growth.md): everything left goes back; a second call changes nothing.
    const refund = await merchant(suite, g, 'POST', `/shawarma/orders/${orderId}/refunds`, {
      amount: '25.00',
    });
    expect(refund.status, refund.text).to.be.oneOf([200, 201, 202]);
    await waitFor('the refund’s share', async () =>
      (await creator(c.id)).revenue === '75.00' ? true : undefined,
    );
    const first = await suite.deps.knex.transaction((trx) => reverseCommissionForDispute(trx, orderId));
    expect(first && commissionEvent(first).data).to.include({
      kind: 'reversed',
      revenue: '-75.00',
      commission: '-7.50',
      refund_id: null,
    });
    expect(await suite.deps.knex.transaction((trx) => reverseCommissionForDispute(trx, orderId))).to.equal(
      null,
    );
    expect(await creator(c.id)).to.include({ orders: 1, revenue: '0.00', commission: '0.00' });
  });
});
