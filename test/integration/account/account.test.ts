import { expect } from 'chai';
import type { Order, Product, Store } from '../../../db/models';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { randomIp } from '../../helpers/otp';
import { dashboardLogin, dashboardForm } from '../dashboard/support';
import { hostedMethod } from '../payments/support';
import { licensedProduct } from '../license/support';
import {
  MerchantClient,
  outboxEntries,
  subscribeThroughSandbox,
  subscriptionProduct,
  useSubscriptionsSuite,
  waitFor,
} from '../subscriptions/support';
import { OutboundMessage } from '../../../db/models';
import { SubscriptionLinks } from '../../../shared/services/subscriptions/links';
import {
  buy,
  codeAfter,
  cookieOf,
  formTokenIn,
  get,
  latestEmail,
  post,
  signInByPhone,
  type AccountLogin,
  type Buyer,
} from './support';

/**
 * The buyer's account over HTTP (docs/account.md): sign-in by phone and by e-mail, every order of that
 * phone (or that e-mail) in every store and nobody else's, deactivation that frees a /verify seat, cancel
 * and resume of a renewal, reviews from verified buyers through moderation to the Storefront, "send
 * again", sessions and their cross-site protection. Purchases go through the Embed API and the sandbox.
 */
describe('the buyer’s account', function () {
  this.timeout(120_000);
  const suite = useSubscriptionsSuite();
  let acme: Store;
  let beta: Store;
  let card: Product;
  let app: Product;
  const P1: Buyer = { phone: '594100001', email: 'one@i41.test' };
  const P2: Buyer = { phone: '594100002', email: 'two@i41.test' };
  // Another phone that bought with P1's address: the e-mail sign-in sees it, P1's phone does not.
  const P3: Buyer = { phone: '594100003', email: 'one@i41.test' };
  const orders: Record<string, Order> = {};
  let subscriptionId: number;
  let one: AccountLogin;
  let two: AccountLogin;

  before(async () => {
    const { deps, server } = suite;
    acme = await createStore({ name: 'Acme Keys', support_email: 'help@acme.i41.test' } as never);
    beta = await createStore({ name: 'Beta Apps' });
    await hostedMethod(deps, acme, 'card', 'sandbox');
    await hostedMethod(deps, beta, 'card', 'sandbox');
    card = await createProduct(acme, { name: 'Game card', type: 'code', price_minor: 4_000 });
    await deps
      .knex('product_codes')
      .insert(['GC-I41-0001', 'GC-I41-0002', 'GC-I41-0003'].map((code) => ({ product_id: card.id, code })));
    app = await licensedProduct(beta, deps.cipher, {
      name: 'Desktop app',
      type: 'product',
      price_minor: 9_900,
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    orders.card1 = await buy(deps, server, acme, card, P1);
    orders.app1 = await buy(deps, server, beta, app, P1);
    orders.card2 = await buy(deps, server, acme, card, P2);
    orders.card3 = await buy(deps, server, acme, card, P3);
    const { monthly } = await subscriptionProduct(acme, { name: 'Pro plan' });
    const subscribed = await subscribeThroughSandbox(deps, server, acme, monthly, P1.phone);
    orders.sub1 = subscribed.order;
    subscriptionId = subscribed.subscription.id;
  });

  const codeOf = async (order: Order): Promise<string> => {
    const row = (await suite.deps
      .knex('product_codes as pc')
      .join('order_items as oi', 'oi.id', 'pc.order_item_id')
      .where('oi.order_id', order.id)
      .first('pc.code')) as { code: string };
    return row.code;
  };
  const licenseOf = async (order: Order): Promise<string> =>
    ((await suite.deps.knex('licenses').where({ order_id: order.id }).first('key')) as { key: string }).key;

  it('signs in by phone with the code from the outbox; a wrong code keeps the code step with an error', async () => {
    const { deps, server } = suite;
    const page = await get(server, '/account?lang=en');
    expect(page.status).to.equal(200);
    expect(page.text).to.match(/autocomplete="tel-country-code"/);
    expect(page.text).to.match(/autocomplete="tel-national"/);
    expect(page.text).to.match(/type="email"/);

    const started = await post(server, '/account/signin/phone', { country_code: '966', phone: P1.phone });
    expect(started.status, started.text).to.equal(303);
    expect(started.headers.get('location')).to.equal('/account/code');
    const pending = cookieOf(started, 'matjar_account_otp');
    const codePage = await get(server, '/account/code', pending);
    expect(codePage.text).to.match(/autocomplete="one-time-code"/);
    const wrong = await post(server, '/account/code', { code: '000000' }, pending);
    expect(wrong.status).to.equal(422);
    expect(wrong.text).to.match(/role="alert"/);
    expect(wrong.text).to.match(/autocomplete="one-time-code"/);

    one = await signInByPhone(deps, server, P1.phone);
    const raw = (
      await post(server, '/account/signin/phone', { country_code: '966', phone: P2.phone })
    ).headers.getSetCookie();
    expect(raw.join()).to.match(/matjar_account_otp=[^;]+; Path=\/account; HttpOnly; SameSite=Strict/);
    two = await signInByPhone(deps, server, P2.phone);
  });

  it('sets the session cookie HttpOnly, SameSite=Strict, scoped to /account', async () => {
    const before = await OutboundMessage.query(suite.deps.knex)
      .where({ to: `966${P1.phone}`, purpose: 'otp' })
      .resultSize();
    const started = await post(suite.server, '/account/signin/phone', {
      country_code: '966',
      phone: P1.phone,
    });
    const pending = cookieOf(started, 'matjar_account_otp');
    const code = await codeAfter(suite.deps, P1.phone, before);
    const done = await post(suite.server, '/account/code', { code }, pending);
    const cookie = done.headers.getSetCookie().find((c) => c.startsWith('matjar_account='));
    expect(cookie).to.match(/; Path=\/account; HttpOnly; SameSite=Strict/);
  });

  it('shows every order of the phone in both stores, grouped by store, with keys as text, and no other buyer’s', async () => {
    const page = await get(suite.server, '/account?lang=en', one.cookie);
    expect(page.status).to.equal(200);
    const html = page.text;
    for (const o of [orders.card1, orders.app1, orders.sub1]) expect(html).to.contain(`id="order-${o.id}-h"`);
    expect(html).to.contain('Acme Keys').and.to.contain('Beta Apps');
    expect(html).to.contain(await codeOf(orders.card1));
    expect(html).to.contain(await licenseOf(orders.app1));
    expect(html)
      .to.match(/SAR\s40\.00/)
      .and.to.match(/SAR\s99\.00/);
    expect(html).to.contain('help@acme.i41.test');
    expect(html).to.match(/Receipt|Tax invoice/);
    // Nobody else's: P2's order and key, nor P3's (same e-mail, other phone).
    expect(html).to.not.contain(`id="order-${orders.card2.id}-h"`);
    expect(html).to.not.contain(await codeOf(orders.card2));
    expect(html).to.not.contain(`id="order-${orders.card3.id}-h"`);
    expect(html).to.not.contain(await codeOf(orders.card3));
    // Grouped by store, the store of the newest order first (the subscription at Acme), newest first within.
    const acmeAt = html.indexOf('>Acme Keys<');
    const betaAt = html.indexOf('>Beta Apps<');
    expect(acmeAt).to.be.greaterThan(-1).and.lessThan(betaAt);
    expect(html.indexOf(`id="order-${orders.sub1.id}-h"`)).to.be.lessThan(
      html.indexOf(`id="order-${orders.card1.id}-h"`),
    );

    const search = await get(suite.server, '/account?lang=en&q=desktop', one.cookie);
    expect(search.text).to.contain(`id="order-${orders.app1.id}-h"`);
    expect(search.text).to.not.contain(`id="order-${orders.card1.id}-h"`);
    const byStore = await get(suite.server, '/account?lang=en&q=acme', one.cookie);
    expect(byStore.text).to.contain(`id="order-${orders.card1.id}-h"`);
    expect(byStore.text).to.not.contain(`id="order-${orders.app1.id}-h"`);
  });

  it('signs in by e-mail with the one-time link: only the orders placed with that address, whatever the phone', async () => {
    const { server } = suite;
    const sent = await post(server, '/account/signin/email', { email: 'One@i41.test' });
    expect(sent.status, sent.text).to.equal(200);
    const mail = await waitFor('the sign-in e-mail', async () =>
      latestEmail(server, 'one@i41.test').then((m) =>
        m && /\/account\/email\//.test(m.body) ? m : undefined,
      ),
    );
    const link = /https?:\/\/[^\s"<>]+\/account\/email\/[A-Za-z0-9_-]+/.exec(mail.body)![0];
    // The link points at PUBLIC_BASE_URL, or at the store domain the request came in on: another file in
    // this process may have seeded the demo store, whose fixture domains include 127.0.0.1, this server's host.
    expect([new URL(suite.deps.config.publicBaseUrl).hostname, '127.0.0.1']).to.include(
      new URL(link).hostname,
    );
    const path = new URL(link).pathname;
    const opened = await get(server, path);
    expect(opened.status).to.equal(303);
    const cookie = cookieOf(opened, 'matjar_account');
    const html = (await get(server, '/account?lang=en', cookie)).text;
    expect(html).to.contain(`id="order-${orders.card1.id}-h"`);
    expect(html).to.contain(`id="order-${orders.card3.id}-h"`);
    expect(html).to.contain(await codeOf(orders.card3));
    // The subscription was bought with another address: not this sign-in's.
    expect(html).to.not.contain(`id="order-${orders.sub1.id}-h"`);
    expect(html).to.not.contain(`id="order-${orders.card2.id}-h"`);
    // The link works once.
    expect((await get(server, path)).status).to.equal(410);
  });

  it('refuses every state-changing form without the form token or from another site', async () => {
    const { server } = suite;
    const noToken = await post(server, '/account/signout', {}, one.cookie);
    expect(noToken.status).to.equal(403);
    const otherSite = await post(server, '/account/signout', { _csrf: one.csrf }, one.cookie, {
      Origin: 'https://evil.example',
    });
    expect(otherSite.status).to.equal(403);
    const crossSignIn = await post(server, '/account/signin/email', { email: 'one@i41.test' }, '', {
      'Sec-Fetch-Site': 'cross-site',
    });
    expect(crossSignIn.status).to.equal(403);
    // Another session's form token is not this one's.
    const swapped = await post(
      server,
      `/account/subscriptions/${subscriptionId}/cancel`,
      { _csrf: two.csrf },
      one.cookie,
    );
    expect(swapped.status).to.equal(403);
    expect((await get(server, '/account', one.cookie)).status).to.equal(200);
  });

  it('Deactivate frees the seat so /verify activates a new machine; another buyer cannot deactivate it', async () => {
    const { server, deps } = suite;
    const key = await licenseOf(orders.app1);
    const verify = (hwid: string) =>
      server.request('/verify', { method: 'POST', json: { product_id: app.id, license_key: key, hwid } });
    expect((await verify('OLD-LAPTOP-1')).status).to.equal(200);
    const full = await verify('NEW-LAPTOP-2');
    expect(full.status).to.not.equal(200);
    const activation = (await deps
      .knex('license_activations as a')
      .join('licenses as l', 'l.id', 'a.license_id')
      .where('l.key', key)
      .first('a.id')) as { id: number };
    const page = await get(server, '/account?lang=en', one.cookie);
    expect(page.text).to.contain(`/account/activations/${activation.id}/deactivate`);
    expect(page.text).to.match(/>Deactivate</);

    const stranger = await post(
      server,
      `/account/activations/${activation.id}/deactivate`,
      { _csrf: two.csrf },
      two.cookie,
    );
    expect(stranger.status).to.equal(404);
    const done = await post(
      server,
      `/account/activations/${activation.id}/deactivate`,
      { _csrf: one.csrf },
      one.cookie,
    );
    expect(done.status, done.text).to.equal(303);
    expect((await get(server, '/account?lang=en', one.cookie)).text).to.not.contain(
      `/account/activations/${activation.id}/deactivate`,
    );
    expect((await verify('NEW-LAPTOP-2')).status).to.equal(200);
  });

  it('gives an offline certificate for a machine of the buyer’s license, refused as /verify refuses; never to another buyer', async () => {
    const { server, deps } = suite;
    const license = (await deps.knex('licenses').where({ order_id: orders.app1.id }).first('id', 'key')) as {
      id: number;
      key: string;
    };
    const path = `/account/licenses/${license.id}/certificate`;
    expect((await get(server, '/account?lang=en', one.cookie)).text).to.contain(`action="${path}"`);
    const issued = await post(server, path, { _csrf: one.csrf, hwid: 'NEW-LAPTOP-2' }, one.cookie);
    expect(issued.status, issued.text).to.equal(200);
    expect(issued.headers.get('content-disposition')).to.match(
      /^attachment; filename="license-certificate\.jws"/,
    );
    const [, payload] = issued.text.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).to.include({ product_id: app.id, hwid: 'NEW-LAPTOP-2', status: 'active' });
    // The one seat is taken by NEW-LAPTOP-2: another machine is refused, as /verify would refuse it.
    const refused = await post(server, path, { _csrf: one.csrf, hwid: 'THIRD-PC' }, one.cookie);
    expect(refused.status).to.equal(409);
    expect(refused.text).to.contain('No certificate for this machine');
    const stranger = await post(server, path, { _csrf: two.csrf, hwid: 'NEW-LAPTOP-2' }, two.cookie);
    expect(stranger.status).to.equal(404);
  });

  it('holds under simultaneous requests: a sign-in link opens one session, a review stays one', async () => {
    const { server, deps } = suite;
    const sent = await post(server, '/account/signin/email', { email: 'race@i41.test' });
    expect(sent.status).to.equal(200);
    const mail = await waitFor('the sign-in e-mail', () => latestEmail(server, 'race@i41.test'));
    const path = new URL(/https?:\/\/\S+\/account\/email\/[A-Za-z0-9_-]+/.exec(mail.body)![0]).pathname;
    const answers = await Promise.all(Array.from({ length: 6 }, () => get(server, path)));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([303, 410, 410, 410, 410, 410]);

    const writes = await Promise.all(
      [1, 2, 3, 4, 5].map((rating) =>
        post(
          server,
          '/account/reviews',
          { _csrf: one.csrf, product_id: String(card.id), rating: String(rating), comment: `take ${rating}` },
          one.cookie,
        ),
      ),
    );
    expect(writes.map((w) => w.status)).to.deep.equal([303, 303, 303, 303, 303]);
    expect(await deps.knex('reviews').where({ product_id: card.id })).to.have.length(1);
  });

  it('Cancel renewal then Resume: the Merchant API shows cancel_at_period_end, then not; another buyer cannot', async () => {
    const { server } = suite;
    const merchant = new MerchantClient(server, await merchantToken(acme));
    const page = await get(server, '/account?lang=en', one.cookie);
    expect(page.text).to.match(/>Cancel renewal</);
    expect(page.text).to.match(/Next renewal/);
    const stranger = await post(
      server,
      `/account/subscriptions/${subscriptionId}/cancel`,
      { _csrf: two.csrf },
      two.cookie,
    );
    expect(stranger.status).to.equal(404);
    const cancelled = await post(
      server,
      `/account/subscriptions/${subscriptionId}/cancel`,
      { _csrf: one.csrf },
      one.cookie,
    );
    expect(cancelled.status).to.equal(303);
    const after = await merchant.request(`/shawarma/subscriptions/${subscriptionId}`);
    expect((after.body.data as { cancel_at_period_end: boolean }).cancel_at_period_end).to.equal(true);
    expect((await get(server, '/account?lang=en', one.cookie)).text).to.match(/>Resume</);
    const resumed = await post(
      server,
      `/account/subscriptions/${subscriptionId}/resume`,
      { _csrf: one.csrf },
      one.cookie,
    );
    expect(resumed.status).to.equal(303);
    const again = await merchant.request(`/shawarma/subscriptions/${subscriptionId}`);
    expect(again.body.data as { cancel_at_period_end: boolean; status: string }).to.include({
      cancel_at_period_end: false,
      status: 'active',
    });
  });

  it('shows a pending price rise; declining it ends the subscription with its period; the link-only page points to the account', async () => {
    const { server, deps } = suite;
    // The state a merchant's price rise leaves (docs/subscriptions.md): new terms waiting after the notice.
    await deps
      .knex('subscriptions')
      .where({ id: subscriptionId })
      .update({ next_price_minor: 1_500, next_terms_from: new Date(Date.now() + 8 * 86_400_000) });
    const page = await get(server, '/account?lang=en', one.cookie);
    expect(page.text).to.match(/the price is SAR\s15\.00/);
    expect(page.text).to.match(/>Decline the new price</);
    const declined = await post(
      server,
      `/account/subscriptions/${subscriptionId}/cancel`,
      { _csrf: one.csrf },
      one.cookie,
    );
    expect(declined.status).to.equal(303);
    const row = await deps.knex('subscriptions').where({ id: subscriptionId }).first();
    expect(row).to.include({ cancel_at_period_end: true, status: 'active' });
    const links = new SubscriptionLinks(deps.appSecret);
    const old = await get(server, `/pay/subscriptions/${links.ref(subscriptionId)}?lang=en`);
    expect(old.status).to.equal(200);
    expect(old.text).to.contain('href="/account?lang=en"');
    await post(server, `/account/subscriptions/${subscriptionId}/resume`, { _csrf: one.csrf }, one.cookie);
  });

  it('a verified buyer reviews once per product (editable, escaped); published after moderation with a verified mark and the reply', async () => {
    const { server, deps } = suite;
    const stranger = await post(
      server,
      '/account/reviews',
      { _csrf: two.csrf, product_id: String(app.id), rating: '5', comment: 'never bought it' },
      two.cookie,
    );
    expect(stranger.status).to.equal(404);
    const bad = await post(
      server,
      '/account/reviews',
      { _csrf: one.csrf, product_id: String(app.id), rating: '9', comment: '' },
      one.cookie,
    );
    expect(bad.status).to.equal(422);
    const first = await post(
      server,
      '/account/reviews',
      { _csrf: one.csrf, product_id: String(app.id), rating: '3', comment: 'ok' },
      one.cookie,
    );
    expect(first.status).to.equal(303);
    const edited = await post(
      server,
      '/account/reviews',
      {
        _csrf: one.csrf,
        product_id: String(app.id),
        rating: '5',
        comment: '<script>alert(1)</script> works',
      },
      one.cookie,
    );
    expect(edited.status).to.equal(303);
    const rows = await deps.knex('reviews').where({ product_id: app.id });
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ rating: 5, published: false, verified: true });
    const page = (await get(server, '/account?lang=en', one.cookie)).text;
    expect(page).to.not.contain('<script>alert(1)</script>');
    expect(page).to.contain('&lt;script&gt;alert(1)&lt;/script&gt; works');

    await deps
      .knex('store_domains')
      .insert({ store_id: beta.id, domain: 'beta.i41.test', verified_at: new Date(), txt_value: 'i41' });
    const storefront = () =>
      server.request(`/api/reviews?product_id=${app.id}`, {
        headers: { Host: 'beta.i41.test', 'X-Forwarded-For': randomIp() },
      });
    expect(((await storefront()).body.data as { items: unknown[] }).items).to.have.length(0);

    const merchant = await dashboardLogin(deps.knex, deps.appSecret, beta.id, 'owner');
    const list = await server.request('/merchant/reviews?lang=en', { headers: { cookie: merchant.cookie } });
    expect(list.text).to.contain('Verified purchase');
    const id = Number(rows[0]!.id);
    const published = await server.request(`/merchant/reviews/${id}`, {
      ...dashboardForm(merchant, { published: '1' }),
      redirect: 'manual',
    });
    expect(published.status).to.equal(303);
    const replied = await server.request(`/merchant/reviews/${id}/reply`, {
      ...dashboardForm(merchant, { reply: 'Thank you!' }),
      redirect: 'manual',
    });
    expect(replied.status).to.equal(303);
    const shown = (await storefront()).body.data as {
      items: {
        id: number;
        rating: number;
        verified_purchase: boolean;
        reply: string | null;
        comment: string;
      }[];
    };
    expect(shown.items).to.have.length(1);
    expect(shown.items[0]).to.include({ id, rating: 5, verified_purchase: true, reply: 'Thank you!' });
  });

  it('sends an order’s goods again by message and by e-mail, to the order’s own phone and address', async () => {
    const { server } = suite;
    const key = await codeOf(orders.card1);
    const before = (await outboxEntries(server, `966${P1.phone}`)).filter((m) => m.body.includes(key)).length;
    const message = await post(
      server,
      `/account/orders/${orders.card1.id}/send-again`,
      { _csrf: one.csrf, channel: 'message' },
      one.cookie,
    );
    expect(message.status, message.text).to.equal(303);
    await waitFor('the message sent again', async () => {
      const n = (await outboxEntries(server, `966${P1.phone}`)).filter((m) => m.body.includes(key)).length;
      return n > before ? n : undefined;
    });
    const mailsBefore = (await outboxEntries(server, P1.email)).filter((m) => m.body.includes(key)).length;
    const mail = await post(
      server,
      `/account/orders/${orders.card1.id}/send-again`,
      { _csrf: one.csrf, channel: 'email' },
      one.cookie,
    );
    expect(mail.status).to.equal(303);
    await waitFor('the e-mail sent again', async () => {
      const n = (await outboxEntries(server, P1.email)).filter((m) => m.body.includes(key)).length;
      return n > mailsBefore ? n : undefined;
    });
    const stranger = await post(
      server,
      `/account/orders/${orders.card1.id}/send-again`,
      { _csrf: two.csrf, channel: 'message' },
      two.cookie,
    );
    expect(stranger.status).to.equal(404);
    // Three a quarter hour per order and channel.
    const again = () =>
      post(
        server,
        `/account/orders/${orders.card1.id}/send-again`,
        { _csrf: one.csrf, channel: 'message' },
        one.cookie,
      );
    expect((await again()).status).to.equal(303);
    expect((await again()).status).to.equal(303);
    const limited = await again();
    expect(limited.status).to.equal(429);
    expect(limited.text).to.contain('Too many requests');
  });

  it('opens on a verified store domain, branded with the store, and its e-mailed link comes back to that domain', async () => {
    const { server } = suite;
    await suite.deps
      .knex('store_domains')
      .insert({ store_id: acme.id, domain: 'acme.i41.test', verified_at: new Date(), txt_value: 'i41' });
    const page = await server.request('/account?lang=ar', { headers: { Host: 'acme.i41.test' } });
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('dir="rtl"').and.to.contain('Acme Keys');
    const sent = await server.request('/account/signin/email', {
      method: 'POST',
      headers: {
        Host: 'acme.i41.test',
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Forwarded-For': randomIp(),
      },
      body: 'email=domain%40i41.test',
    });
    expect(sent.status, sent.text).to.equal(200);
    const mail = await waitFor('the e-mail', () => latestEmail(server, 'domain@i41.test'));
    expect(mail.body).to.match(/http:\/\/acme\.i41\.test(:\d+)?\/account\/email\//);
    expect(mail.subject).to.contain('Acme Keys');
  });

  it('purges buyer sessions a week after they ended, with the dashboard’s sessions', async () => {
    const { server, deps } = suite;
    const old = new Date(Date.now() - 8 * 86_400_000);
    const [row] = (await deps
      .knex('buyer_sessions')
      .insert({
        identity_kind: 'phone',
        identity: `966${P2.phone}`,
        token_hash: 'f'.repeat(64),
        expires_at: new Date(Date.now() + 86_400_000),
        revoked_at: old,
      })
      .returning('id')) as { id: number }[];
    const ran = await server.request('/__dev/tasks/purge-dashboard-sessions', { method: 'POST' });
    expect(ran.status, ran.text).to.equal(200);
    expect(await deps.knex('buyer_sessions').where({ id: row!.id })).to.have.length(0);
    // A live session is kept.
    expect((await get(server, '/account?lang=en', two.cookie)).text).to.contain(
      `id="order-${orders.card2.id}-h"`,
    );
  });

  it('limits review writes to ten an hour per buyer', async () => {
    const { server } = suite;
    expect((await post(server, '/account/signin/email', { email: 'one@i41.test' })).status).to.equal(200);
    const mail = await waitFor('the sign-in e-mail', async () =>
      latestEmail(server, 'one@i41.test').then((m) =>
        m && /\/account\/email\//.test(m.body) ? m : undefined,
      ),
    );
    const opened = await get(
      server,
      new URL(/https?:\/\/\S+\/account\/email\/[A-Za-z0-9_-]+/.exec(mail.body)![0]).pathname,
    );
    const cookie = cookieOf(opened, 'matjar_account');
    const csrf = formTokenIn((await get(server, '/account', cookie)).text);
    const write = () =>
      post(
        server,
        '/account/reviews',
        { _csrf: csrf, product_id: String(card.id), rating: '4', comment: 'again' },
        cookie,
      );
    for (let i = 0; i < 10; i += 1) expect((await write()).status).to.equal(303);
    const limited = await write();
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
  });

  it('sign out ends this session; sign out everywhere ends every session of the phone', async () => {
    const { deps, server } = suite;
    const second = await signInByPhone(deps, server, P1.phone);
    const out = await post(server, '/account/signout', { _csrf: second.csrf }, second.cookie);
    expect(out.status).to.equal(303);
    expect((await get(server, '/account?lang=en', second.cookie)).text).to.match(
      /autocomplete="tel-national"/,
    );
    expect((await get(server, '/account?lang=en', one.cookie)).text).to.contain(
      `id="order-${orders.card1.id}-h"`,
    );
    const third = await signInByPhone(deps, server, P1.phone);
    const everywhere = await post(
      server,
      '/account/signout',
      { _csrf: third.csrf, everywhere: '1' },
      third.cookie,
    );
    expect(everywhere.status).to.equal(303);
    for (const cookie of [one.cookie, third.cookie]) {
      const page = await get(server, '/account?lang=en', cookie);
      expect(page.text).to.not.contain(`id="order-${orders.card1.id}-h"`);
    }
    // The other buyer is still signed in.
    expect((await get(server, '/account?lang=en', two.cookie)).text).to.contain(
      `id="order-${orders.card2.id}-h"`,
    );
    expect(formTokenIn((await get(server, '/account', two.cookie)).text)).to.equal(two.csrf);
  });
});
