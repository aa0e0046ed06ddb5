import { expect } from 'chai';
import { randomIp } from '../../helpers/otp';
import { usePaymentsSuite } from '../payments/support';
import { embedCheckout, growthStore, GrowthStore, merchant } from './support';

/**
 * Timed sales (docs/growth.md): the Merchant API schedules them; price.actual in the Embed, Storefront
 * and Merchant answers and what a checkout charges follow them, on time, without a write at the boundary.
 */
describe('Growth: timed sales', function () {
  this.timeout(60_000);
  const suite = usePaymentsSuite({ workers: false });
  let g: GrowthStore;

  beforeEach(async () => {
    g = await growthStore(suite);
  });

  const embedPrice = async (productId: number) => {
    const res = await suite.server.request(`/api/embed/product/${productId}`, {
      headers: { 'X-Embed-Key': g.store.embed_key, 'X-Forwarded-For': randomIp() },
    });
    expect(res.status, res.text).to.equal(200);
    return (res.body.data as { price: { original: number; actual: number } }).price;
  };
  const amountOf = async (body: Record<string, unknown>) => {
    const res = await embedCheckout(suite, g, body);
    expect(res.status, res.text).to.equal(200);
    return (res.body.data as { amount: string }).amount;
  };
  const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
  const inHour = () => new Date(Date.now() + 3_600_000).toISOString();

  it('a running percent sale is price.actual everywhere and what the checkout charges; DELETE ends it', async () => {
    const ebook = g.products.ebook!;
    const created = await merchant(suite, g, 'POST', '/shawarma/sales', {
      name: 'White Friday',
      percent: 12.5,
      products: [ebook],
      starts_at: hourAgo(),
      ends_at: inHour(),
    });
    expect(created.status, created.text).to.equal(201);
    const sale = created.body.data as { id: number; percent: string; state: string };
    expect(sale.percent).to.equal('12.50');
    expect(sale.state).to.equal('running');

    expect(await embedPrice(ebook)).to.include({ original: 100, actual: 87.5 });
    expect(await amountOf({ product_id: ebook, quantity: 2 })).to.equal('175.00');
    const merchantView = await merchant(suite, g, 'GET', `/shawarma/products/${ebook}`);
    expect((merchantView.body.data as { price: { actual: string } }).price.actual).to.equal('87.50');
    const deleted = await merchant(suite, g, 'DELETE', `/shawarma/sales/${sale.id}`);
    expect(deleted.status, deleted.text).to.equal(200);
    expect(await embedPrice(ebook)).to.include({ original: 100, actual: 100 });
    expect(await amountOf({ product_id: ebook })).to.equal('100.00');
    expect((await merchant(suite, g, 'GET', `/shawarma/sales/${sale.id}`)).status).to.equal(404);
  });

  it('a sale starting while the product answer is cached shows at its start, with no write', async () => {
    const ebook = g.products.ebook!;
    // Warm the cache, then schedule a sale a moment ahead (the write bumps the store's counter) and
    // warm it again: the cached answer is the usual price, stored before the sale starts.
    expect(await embedPrice(ebook)).to.include({ actual: 100 });
    const startsAt = new Date(Date.now() + 1_500);
    const created = await merchant(suite, g, 'POST', '/shawarma/sales', {
      name: 'Launch',
      percent: '30',
      products: [ebook],
      starts_at: startsAt.toISOString(),
      ends_at: inHour(),
    });
    expect(created.status, created.text).to.equal(201);
    expect(await embedPrice(ebook)).to.include({ actual: 100 });
    expect(await embedPrice(ebook)).to.include({ actual: 100 });
    while (Date.now() < startsAt.getTime() + 20) await new Promise((r) => setTimeout(r, 50));
    // Nothing was written since: the cached entry ends at the boundary it was stored with.
    expect(await embedPrice(ebook)).to.include({ actual: 70 });
    expect(await amountOf({ product_id: ebook })).to.equal('70.00');
  });

  it('overlapping sales give the best one; stackable ones add to it; a category sale covers its products', async () => {
    const game = g.products.game!;
    const post = (json: Record<string, unknown>) =>
      merchant(suite, g, 'POST', '/shawarma/sales', { starts_at: hourAgo(), ends_at: inHour(), ...json });
    expect((await post({ name: 'Ten', percent: 10, products: [game] })).status).to.equal(201);
    expect((await post({ name: 'Games', percent: 30, categories: [g.categories.games] })).status).to.equal(
      201,
    );
    expect((await post({ name: 'Fixed', amount: '12.00', products: [game] })).status).to.equal(201);
    // 30% of 50.00 = 15.00 beats 12.00 and 5.00.
    expect(await embedPrice(game)).to.include({ original: 50, actual: 35 });
    expect(
      (await post({ name: 'Extra', amount: '2.50', products: [game], stackable: true })).status,
    ).to.equal(201);
    expect(await embedPrice(game)).to.include({ actual: 32.5 });
    expect(await amountOf({ product_id: game })).to.equal('32.50');
    // A product with its own sale price: the timed sale applies to that price.
    const other = g.products.other!;
    expect((await post({ name: 'Other', percent: 50, products: [other] })).status).to.equal(201);
    expect(await embedPrice(other)).to.include({ original: 10, actual: 4.5 });
  });

  it('a sale that ended or has not started leaves the usual price', async () => {
    const ebook = g.products.ebook!;
    const past = await merchant(suite, g, 'POST', '/shawarma/sales', {
      name: 'Past',
      percent: 50,
      products: [ebook],
      starts_at: new Date(Date.now() - 7_200_000).toISOString(),
      ends_at: hourAgo(),
    });
    expect((past.body.data as { state: string }).state).to.equal('ended');
    const future = await merchant(suite, g, 'POST', '/shawarma/sales', {
      name: 'Future',
      percent: 50,
      products: [ebook],
      starts_at: inHour(),
      ends_at: new Date(Date.now() + 7_200_000).toISOString(),
    });
    expect((future.body.data as { state: string }).state).to.equal('scheduled');
    expect(await embedPrice(ebook)).to.include({ actual: 100 });
    const running = await merchant(suite, g, 'GET', '/shawarma/sales?state=scheduled');
    expect((running.body.data as { name: string }[]).map((s) => s.name)).to.deep.equal(['Future']);
    // PATCH moves the future one to now: the next read shows it.
    const id = (future.body.data as { id: number }).id;
    const patched = await merchant(suite, g, 'PATCH', `/shawarma/sales/${id}`, { starts_at: hourAgo() });
    expect(patched.status, patched.text).to.equal(200);
    expect(await embedPrice(ebook)).to.include({ actual: 50 });
  });

  it('refuses bad sales with a 422 naming each field, and another store’s sale is a 404', async () => {
    const bad = await merchant(suite, g, 'POST', '/shawarma/sales', {
      name: 'Bad',
      percent: 10,
      amount: '5.00',
      products: [999_999],
      starts_at: inHour(),
      ends_at: hourAgo(),
    });
    expect(bad.status, bad.text).to.equal(422);
    expect(bad.body.errors).to.include.keys('amount', 'products', 'ends_at');
    const over = await merchant(suite, g, 'POST', '/shawarma/sales', {
      name: 'Over',
      percent: 120,
      products: [g.products.ebook],
      starts_at: hourAgo(),
      ends_at: inHour(),
    });
    expect(over.status, over.text).to.equal(422);
    expect(over.body.errors).to.have.key('percent');
    const mine = await merchant(suite, g, 'POST', '/shawarma/sales', {
      name: 'Mine',
      percent: 10,
      products: [g.products.ebook],
      starts_at: hourAgo(),
      ends_at: inHour(),
    });
    const other = await growthStore(suite);
    const id = (mine.body.data as { id: number }).id;
    expect((await merchant(suite, other, 'GET', `/shawarma/sales/${id}`)).status).to.equal(404);
    expect((await merchant(suite, other, 'DELETE', `/shawarma/sales/${id}`)).status).to.equal(404);
  });
});
