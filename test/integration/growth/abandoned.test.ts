import { expect } from 'chai';
import { randomIp } from '../../helpers/otp';
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

interface Outbox {
  messages: { to: string; channel: string; body: string; subject?: string }[];
}

/**
 * Abandoned checkouts (docs/growth.md): the `abandoned-checkouts` task through POST /__dev/tasks, the
 * real messages and e-mails workers, the outbox drivers, and the resume and opt-out addresses.
 */
describe('Growth: abandoned checkouts', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();
  let g: GrowthStore;
  let seq = 0;

  before(async () => {
    g = await growthStore(suite, {
      coupons: [{ code: 'BACK10', type: 'percentage', amount: '10', active: true }],
      settings: { abandoned_checkout_minutes: 30 },
    });
    const res = await merchant(suite, g, 'PATCH', '/shawarma/store', {
      settings: { abandoned_checkout_coupon: 'back10' },
    });
    expect(res.status, res.text).to.equal(200);
    await hookEndpoint(suite, g, ['checkout.recovered']);
    expect((res.body.data as { settings: unknown }).settings).to.deep.include({
      abandoned_checkout_minutes: 30,
      abandoned_checkout_coupon: 'BACK10',
    });
  });

  /** A fresh buyer (phone and e-mail) of this file's range. */
  const buyer = () => {
    seq += 1;
    const phone = `5944${String(100 + seq).padStart(5, '0')}`;
    return { customer_phone: phone, customer_email: `buyer${seq}@i44.test` };
  };
  const open = async (who: { customer_phone: string; customer_email: string }, headers = {}) => {
    const res = await embedCheckout(suite, g, { product_id: g.products.ebook, ...who }, headers);
    expect(res.status, res.text).to.equal(200);
    return res.body.data as { checkout_id: number; checkout_url: string; amount: string };
  };
  /** The checkout as if opened `minutes` ago: the delay is what the task reads. */
  const age = (checkoutId: number, minutes: number) =>
    suite.deps
      .knex('checkouts')
      .where('id', checkoutId)
      .update({ created_at: new Date(Date.now() - minutes * 60_000) });
  const runTask = async () => {
    const res = await suite.server.request('/__dev/tasks/abandoned-checkouts', { method: 'POST' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ ran: 'abandoned-checkouts' });
  };
  const outbox = async (to: string) => {
    const res = await suite.server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status, res.text).to.equal(200);
    return (res.body as unknown as Outbox).messages;
  };
  const remindersOf = (checkoutId: number) =>
    suite.deps.knex('checkout_reminders').where('checkout_id', checkoutId).select('id');
  const linkIn = (body: string, suffix = '') => {
    const match = new RegExp(`https?://[^\\s]+/r/\\d+-[0-9a-f]{32}${suffix}(?=\\s|$)`).exec(body);
    expect(match, body).to.not.equal(null);
    return new URL(match![0]).pathname;
  };

  it('two task runs at once send one reminder (message and e-mail, in the buyer’s language, naming the coupon)', async () => {
    const who = buyer();
    const checkout = await open(who, { 'Accept-Language': 'ar' });
    await age(checkout.checkout_id, 31);
    await Promise.all([runTask(), runTask(), runTask()]);
    expect(await remindersOf(checkout.checkout_id)).to.have.length(1);
    const messages = await waitFor('the reminder message', async () => {
      const got = await outbox(`966${who.customer_phone}`);
      return got.length > 0 ? got : undefined;
    });
    const emails = await waitFor('the reminder e-mail', async () => {
      const got = await outbox(who.customer_email);
      return got.length > 0 ? got : undefined;
    });
    await runTask();
    expect(await outbox(`966${who.customer_phone}`)).to.have.length(1);
    expect(messages).to.have.length(1);
    expect(messages[0]!.body).to.include('لم تُكمل دفع');
    expect(messages[0]!.body).to.include('BACK10');
    linkIn(messages[0]!.body);
    linkIn(messages[0]!.body, '/opt-out');
    expect(emails).to.have.length(1);
    expect(emails[0]!.subject).to.equal('تركت شيئاً في سلتك');
    expect(emails[0]!.body).to.include('BACK10');
  });

  it('before the delay, for a paid checkout, a blocked phone, or with reminders off: no reminder', async () => {
    const early = await open(buyer());
    await age(early.checkout_id, 10);
    const paidBuyer = buyer();
    const paid = await open(paidBuyer);
    await payCheckout(suite, g, paid.checkout_url);
    await age(paid.checkout_id, 31);
    const blockedBuyer = buyer();
    const blocked = await open(blockedBuyer);
    await age(blocked.checkout_id, 31);
    await suite.deps.knex('blocked_phones').insert({
      store_id: g.store.id,
      country_code: '966',
      phone: blockedBuyer.customer_phone,
      e164: `966${blockedBuyer.customer_phone}`,
    });
    // Reminders off in another store.
    const off = await growthStore(suite, { settings: { abandoned_checkout_minutes: 0 } });
    const offRes = await embedCheckout(suite, off, { product_id: off.products.ebook, ...buyer() });
    const offId = (offRes.body.data as { checkout_id: number }).checkout_id;
    await age(offId, 600);
    await runTask();
    for (const id of [early.checkout_id, paid.checkout_id, blocked.checkout_id, offId]) {
      expect(await remindersOf(id), `checkout ${id}`).to.have.length(0);
    }
  });

  it('the opt-out link (a confirmed POST) stops reminders for that buyer across the store', async () => {
    const who = buyer();
    const first = await open(who);
    await age(first.checkout_id, 31);
    await runTask();
    const [message] = await waitFor('the reminder', async () => {
      const got = await outbox(`966${who.customer_phone}`);
      return got.length > 0 ? got : undefined;
    });
    const optOut = linkIn(message!.body, '/opt-out');
    const ask = await suite.server.request(`${optOut}?lang=en`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(ask.status).to.equal(200);
    expect(ask.text).to.include('<form method="post"');
    const done = await suite.server.request(`${optOut}?lang=en`, {
      method: 'POST',
      headers: { 'X-Forwarded-For': randomIp(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(done.status, done.text).to.equal(200);
    expect(done.text).to.include('will not send you reminders');
    // The same e-mail from another phone, the same phone with another e-mail: neither is reminded.
    const byEmail = await open({ ...buyer(), customer_email: who.customer_email });
    const byPhone = await open({ ...buyer(), customer_phone: who.customer_phone });
    await age(byEmail.checkout_id, 31);
    await age(byPhone.checkout_id, 31);
    await runTask();
    expect(await remindersOf(byEmail.checkout_id)).to.have.length(0);
    expect(await remindersOf(byPhone.checkout_id)).to.have.length(0);
    const forged = optOut.replace(/-[0-9a-f]{32}/, `-${'0'.repeat(32)}`);
    expect(
      (await suite.server.request(forged, { headers: { 'X-Forwarded-For': randomIp() } })).status,
    ).to.equal(404);
  });

  it('an expired checkout’s link rebuilds it at today’s price with the coupon; paying it counts as recovered', async () => {
    const who = buyer();
    const checkout = await open(who);
    expect(checkout.amount).to.equal('100.00');
    await age(checkout.checkout_id, 120);
    await runTask();
    const [message] = await waitFor('the reminder', async () => {
      const got = await outbox(`966${who.customer_phone}`);
      return got.length > 0 ? got : undefined;
    });
    const resume = linkIn(message!.body);
    // The checkout expires and the price goes up meanwhile.
    await suite.deps
      .knex('checkouts')
      .where('id', checkout.checkout_id)
      .update({ expires_at: new Date(Date.now() - 1000) });
    const patched = await merchant(suite, g, 'PATCH', `/shawarma/products/${g.products.ebook}`, {
      price: '120.00',
    });
    expect(patched.status, patched.text).to.equal(200);

    const res = await suite.server.request(resume, {
      redirect: 'manual',
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(res.status, res.text).to.equal(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).to.match(/^\/pay\//);
    const rebuilt = await suite.deps
      .knex('checkouts')
      .where('reminder_id', (await remindersOf(checkout.checkout_id))[0].id)
      .first();
    // 120.00 less the reminder's 10% coupon.
    expect(Number(rebuilt.total_minor)).to.equal(10_800);
    // Following the link again resumes the same rebuilt checkout instead of holding stock twice.
    const again = await suite.server.request(resume, {
      redirect: 'manual',
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(again.status).to.equal(302);
    const newUrl = decodeURIComponent(new URL(again.headers.get('location')!).pathname.slice('/pay/'.length));
    const copies = await suite.deps
      .knex('checkouts')
      .where('reminder_id', rebuilt.reminder_id)
      .count('* as n')
      .first();
    expect(Number(copies?.n)).to.equal(1);
    await payCheckout(suite, g, newUrl);

    const figures = await merchant(suite, g, 'GET', '/shawarma/abandoned-checkouts');
    expect(figures.status, figures.text).to.equal(200);
    const data = figures.body.data as {
      reminders_sent: number;
      checkouts_recovered: number;
      revenue_recovered: string;
    };
    expect(data.checkouts_recovered).to.equal(1);
    expect(data.revenue_recovered).to.equal('108.00');
    expect(data.reminders_sent).to.be.at.least(2);
    const [recovered] = await deliveredData(suite, g, 'checkout.recovered');
    expect(recovered).to.include({ checkout_id: rebuilt.id, total: '108.00', currency: 'SAR' });
    const paidAgain = await suite.server.request(resume, {
      redirect: 'manual',
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(paidAgain.status).to.equal(200);
    await merchant(suite, g, 'PATCH', `/shawarma/products/${g.products.ebook}`, { price: '100.00' });
  });

  it('a live checkout’s link leads to its own payment step; its old checkout_url stops working', async () => {
    const plain = await growthStore(suite, { settings: { abandoned_checkout_minutes: 5 } });
    const who = buyer();
    const res = await embedCheckout(suite, plain, { product_id: plain.products.ebook, ...who });
    const checkout = res.body.data as { checkout_id: number; checkout_url: string };
    await age(checkout.checkout_id, 6);
    await runTask();
    const [message] = await waitFor('the reminder', async () => {
      const got = await outbox(`966${who.customer_phone}`);
      return got.length > 0 ? got : undefined;
    });
    expect(message!.body).to.include('you did not finish paying SAR 100.00');
    const resumed = await suite.server.request(linkIn(message!.body), {
      redirect: 'manual',
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(resumed.status).to.equal(302);
    const url = decodeURIComponent(new URL(resumed.headers.get('location')!).pathname.slice('/pay/'.length));
    expect(url).to.not.equal(checkout.checkout_url);
    const status = (u: string) =>
      suite.server.request(`/api/embed/payment/status/${encodeURIComponent(u)}`, {
        headers: { 'X-Forwarded-For': randomIp() },
      });
    expect((await status(url)).status).to.equal(200);
    expect((await status(checkout.checkout_url)).status).to.equal(404);
    const page = await suite.server.request(`/pay/${encodeURIComponent(url)}`, {
      headers: { 'X-Forwarded-For': randomIp() },
    });
    expect(page.status).to.equal(200);
    // No second checkout was made for it.
    expect(
      await suite.deps.knex('checkouts').where('store_id', plain.store.id).count('* as n').first(),
    ).to.satisfy((r: { n: string | number }) => Number(r.n) === 1);
  });
});
