import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import {
  createCustomer,
  createProduct,
  createStore,
  customerToken,
  merchantToken,
} from '../../helpers/builders';
import { hostedMethod, usePaymentsSuite } from '../payments/support';
import { buyer, expectBlocked, setFraudSettings } from './support';

/**
 * Block lists (docs/fraud.md, "Block lists"): `blocked_emails` (addresses and `@domain`), `blocked_ips`
 * (addresses and CIDR ranges, IPv4 and IPv6), the blocked phones, on every checkout path: the Embed guest
 * and signed-in checkouts (the widget's), the Storefront checkout and the Merchant API's POST /orders.
 * A refusal is 403 `checkout_blocked` in the interface's envelope with nothing created, is listed for the
 * merchant with the rule that matched, and is counted on /metrics.
 */
describe('fraud controls: block lists on every checkout path', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite({ workers: false });
  let store: Store;
  let product: Product;
  let domain: string;

  beforeEach(async () => {
    domain = `shop-${crypto.randomBytes(4).toString('hex')}.i43.test`;
    store = await createStore({ domains: [domain] });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { price_minor: 2_500 });
    await setFraudSettings(suite.server, store, {
      blocked_emails: ['thief@i43.test', '@stolen-cards.i43.test'],
      blocked_ips: ['203.0.113.7', '198.51.100.0/24', '2001:db8:bad::/48'],
    });
  });

  const embed = (json: Record<string, unknown>, ip: string, token?: string) =>
    suite.server.request(token ? '/api/embed/checkout' : '/api/embed/guest/checkout', {
      method: 'POST',
      json: { product_id: product.id, quantity: 1, ...json },
      headers: {
        'X-Embed-Key': store.embed_key,
        'X-Forwarded-For': ip,
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
    });

  const storefront = async (json: Record<string, unknown>, ip: string) => {
    const added = await suite.server.request('/api/cart/add', {
      method: 'POST',
      json: { product_id: product.id },
      headers: { Host: domain, 'X-Forwarded-For': ip },
    });
    expect(added.status, added.text).to.equal(200);
    const cartId = (added.body.data as { cart_id: string }).cart_id;
    return suite.server.request('/api/checkout', {
      method: 'POST',
      json,
      headers: { Host: domain, 'X-Forwarded-For': ip, 'X-Cart-Id': cartId },
    });
  };

  const merchant = async (json: Record<string, unknown>) =>
    suite.server.request('/shawarma/orders', {
      method: 'POST',
      json: { product_id: product.id, quantity: 1, ...json },
      headers: { Authorization: `Bearer ${await merchantToken(store)}` },
    });

  const checkouts = async () =>
    Number(
      (await suite.deps.knex('checkouts').where('store_id', store.id).count<{ n: string }[]>('* as n'))[0]!.n,
    );
  const refusals = async () =>
    suite.deps
      .knex('checkout_refusals')
      .where('store_id', store.id)
      .orderBy('id')
      .select('rule', 'matched', 'source');

  it('refuses a blocked address and a blocked @domain (subdomains too) on the Embed API, creating nothing', async () => {
    expectBlocked(await embed(buyer({ customer_email: 'Thief@i43.test' }), '192.0.2.10'));
    expectBlocked(await embed(buyer({ customer_email: 'a@stolen-cards.i43.test' }), '192.0.2.11'));
    expectBlocked(await embed(buyer({ customer_email: 'a@mx.stolen-cards.i43.test' }), '192.0.2.12'));
    expect(await checkouts()).to.equal(0);
    // A look-alike domain is not the blocked one.
    const fine = await embed(buyer({ customer_email: 'a@notstolen-cards.i43.test' }), '192.0.2.13');
    expect(fine.status, fine.text).to.equal(200);
    expect(await checkouts()).to.equal(1);
    expect(await refusals()).to.deep.equal([
      { rule: 'blocked_email', matched: 'thief@i43.test', source: 'embed' },
      { rule: 'blocked_email_domain', matched: '@stolen-cards.i43.test', source: 'embed' },
      { rule: 'blocked_email_domain', matched: '@stolen-cards.i43.test', source: 'embed' },
    ]);
  });

  it('refuses blocked addresses and CIDR ranges, IPv4 and IPv6 (and v4 mapped into v6)', async () => {
    expectBlocked(await embed(buyer(), '203.0.113.7'));
    expectBlocked(await embed(buyer(), '198.51.100.200'));
    expectBlocked(await embed(buyer(), '2001:db8:bad:1::5'));
    expectBlocked(await embed(buyer(), '::ffff:198.51.100.9'));
    for (const ip of ['203.0.113.8', '198.51.101.1', '2001:db8:bae::1']) {
      const res = await embed(buyer(), ip);
      expect(res.status, `${ip}: ${res.text}`).to.equal(200);
    }
    expect((await refusals()).map((r) => r.matched)).to.deep.equal([
      '203.0.113.7',
      '198.51.100.0/24',
      '2001:db8:bad::/48',
      '198.51.100.0/24',
    ]);
    expect(await checkouts()).to.equal(3);
  });

  it('holds on the signed-in Embed checkout (the widget), the Storefront and the Merchant API', async () => {
    const customer = await createCustomer(store, {
      email: 'someone@stolen-cards.i43.test',
      country_code: '966',
      phone: '594300901',
    });
    expectBlocked(await embed({}, '192.0.2.20', await customerToken(customer, 'embed')));
    expectBlocked(await storefront(buyer({ customer_email: 'thief@i43.test' }), '192.0.2.21'));
    expectBlocked(await storefront(buyer(), '198.51.100.1'));
    const byMerchant = await merchant(buyer({ customer_email: 'x@stolen-cards.i43.test' }));
    expectBlocked(byMerchant);
    expect(byMerchant.body).to.include({ api: 'merchant', error: true });
    expect(await checkouts()).to.equal(0);
    expect((await refusals()).map((r) => [r.source, r.rule])).to.deep.equal([
      ['embed', 'blocked_email_domain'],
      ['storefront', 'blocked_email'],
      ['storefront', 'blocked_ip'],
      ['merchant', 'blocked_email_domain'],
    ]);
    // The same buyers elsewhere are served.
    const ok = await storefront(buyer(), '192.0.2.22');
    expect(ok.status, ok.text).to.equal(200);
  });

  it('refuses a phone the store blocked at checkout too (not only at OTP sign-in)', async () => {
    const token = await merchantToken(store);
    const patched = await suite.server.request('/shawarma/store', {
      method: 'PATCH',
      json: { blocked_phones: [{ country_code: '966', phone: '594300777' }] },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(patched.status, patched.text).to.equal(200);
    expectBlocked(await embed(buyer({ customer_phone: '594300777' }), '192.0.2.30'));
    expectBlocked(await merchant(buyer({ customer_phone: '594300777' })));
    expect((await refusals()).map((r) => r.matched)).to.deep.equal(['+966594300777', '+966594300777']);
  });

  it('shows the settings back, refuses malformed entries with a 422 naming them, and counts refusals on /metrics', async () => {
    const token = await merchantToken(store);
    const shown = await suite.server.request('/shawarma/store', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect((shown.body.data as { settings: unknown }).settings).to.deep.include({
      blocked_emails: ['thief@i43.test', '@stolen-cards.i43.test'],
      blocked_ips: ['203.0.113.7', '198.51.100.0/24', '2001:db8:bad::/48'],
      max_orders_per_buyer_per_day: null,
      review_above: null,
    });
    const bad = await suite.server.request('/shawarma/store', {
      method: 'PATCH',
      json: { settings: { blocked_ips: ['10.0.0.0/33', 'not-an-ip'], blocked_emails: ['nobody'] } },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(bad.status, bad.text).to.equal(422);
    expect(Object.keys((bad.body as { errors: Record<string, unknown> }).errors).sort()).to.deep.equal([
      'settings.blocked_emails.0',
      'settings.blocked_ips.0',
      'settings.blocked_ips.1',
    ]);

    const before = await metric('blocked_ip');
    expectBlocked(await embed(buyer(), '203.0.113.7'));
    expect(await metric('blocked_ip')).to.equal(before + 1);
  });

  async function metric(rule: string): Promise<number> {
    const res = await suite.server.request('/metrics');
    expect(res.status).to.equal(200);
    const line = res.text.split('\n').find((l) => l.startsWith(`checkout_refusals{rule="${rule}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }
});
