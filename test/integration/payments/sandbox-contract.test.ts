import { expect } from 'chai';
import { Order, Product, Store } from '../../../db/models';
import { createProduct, createStore } from '../../helpers/builders';
import { guestCheckout } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import { guestInitiate, hostedMethod, statusOf, usePaymentsSuite, waitFor } from './support';

/**
 * The sandbox provider of the operator contract (docs/operations.md), as outside tooling reads it and with
 * nothing else: payment/initiate answers type
 * `redirect` with a `redirect_url` under PUBLIC_BASE_URL; a GET on that URL shows an HTML page with Pay and
 * Fail; a POST on that same URL with the form field `outcome` is the choice. No redirect is followed and
 * no other address is used; the outcome is read back through the spec's payment status endpoint.
 */
describe('sandbox provider: the contract (docs/operations.md)', function () {
  this.timeout(30_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let product: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Acme Digital' });
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    product = await createProduct(store, { name: 'E-book', type: 'product', price_minor: 4_000 });
  });

  /** The redirect_url, sent to this test's server: same path and query, PUBLIC_BASE_URL's host aside. */
  function onServer(redirectUrl: string): string {
    const url = new URL(redirectUrl);
    return `${suite.server.url}${url.pathname}${url.search}`;
  }

  const get = (redirectUrl: string): Promise<Response> =>
    fetch(onServer(redirectUrl), { redirect: 'manual', headers: { 'X-Forwarded-For': randomIp() } });

  const post = (redirectUrl: string, outcome: string): Promise<Response> =>
    fetch(onServer(redirectUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': randomIp() },
      body: new URLSearchParams({ outcome }).toString(),
    });

  async function initiated(
    phone: string,
  ): Promise<{ checkoutUrl: string; checkoutId: number; redirectUrl: string }> {
    const checkout = await guestCheckout(
      suite.server,
      store,
      { product_id: product.id },
      { customer_phone: phone },
    );
    const res = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    expect(res.status, res.text).to.equal(200);
    const data = res.body.data as { type: string; redirect_url: string };
    expect(data.type).to.equal('redirect');
    expect(data.redirect_url.startsWith(`${suite.deps.config.publicBaseUrl}/`)).to.equal(true);
    return {
      checkoutUrl: checkout.checkoutUrl,
      checkoutId: checkout.checkoutId,
      redirectUrl: data.redirect_url,
    };
  }

  async function paidStatus(checkoutUrl: string): Promise<{ is_paid: boolean; order_id: number | null }> {
    return waitFor('the payment status to say paid', async () => {
      const res = await statusOf(suite.server, checkoutUrl);
      const data = res.body.data as { is_paid: boolean; order_id: number | null };
      return data.is_paid ? data : undefined;
    });
  }

  it('GET on the redirect_url shows the Pay/Fail page; POST outcome=paid on it pays', async () => {
    const { checkoutUrl, redirectUrl } = await initiated('500000201');

    const page = await get(redirectUrl);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const html = await page.text();
    // Two forms posting back to the page itself, one per outcome, each with its button.
    const forms = [...html.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)];
    const byOutcome = new Map(forms.map((f) => [/name="outcome" value="(\w+)"/.exec(f[2])?.[1], f]));
    expect([...byOutcome.keys()].sort()).to.deep.equal(['failed', 'paid']);
    for (const [, form] of byOutcome) expect(form[1]).to.equal(new URL(redirectUrl).pathname);
    expect(byOutcome.get('paid')?.[2]).to.match(/<button[^>]*>Pay<\/button>/);
    expect(byOutcome.get('failed')?.[2]).to.match(/<button[^>]*>Fail<\/button>/);

    const chosen = await post(redirectUrl, 'paid');
    expect(chosen.status).to.equal(200);
    expect(chosen.headers.get('location')).to.equal(null);
    await chosen.text();

    const status = await paidStatus(checkoutUrl);
    expect(status.order_id).to.be.a('number');
  });

  it('two simultaneous outcome=paid posts, right after initiate, end in one order', async () => {
    const { checkoutUrl, checkoutId, redirectUrl } = await initiated('500000202');
    // No GET first: the posts may arrive before the worker has opened the sandbox session.
    const answers = await Promise.all([post(redirectUrl, 'paid'), post(redirectUrl, 'paid')]);
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200]);
    await Promise.all(answers.map((a) => a.text()));

    const status = await paidStatus(checkoutUrl);
    const orders = await Order.query().where('checkout_id', checkoutId);
    expect(orders.map((o) => o.id)).to.deep.equal([status.order_id]);
  });

  it('POST outcome=failed leaves the checkout unpaid, and a later outcome=paid is refused', async () => {
    const { checkoutUrl, checkoutId, redirectUrl } = await initiated('500000203');
    const failed = await post(redirectUrl, 'failed');
    expect(failed.status).to.equal(200);
    await failed.text();
    const page = await waitFor('the page to show the failure', async () => {
      const res = await get(`${redirectUrl}?return=1`);
      const html = await res.text();
      return html.includes('declined') ? html : undefined;
    });
    expect(page).to.contain('Retry with Credit card');

    const late = await post(redirectUrl, 'paid');
    expect(late.status).to.equal(409);
    await late.text();
    expect((await statusOf(suite.server, checkoutUrl)).body.data).to.deep.equal({
      is_paid: false,
      order_id: null,
    });
    expect(await Order.query().where('checkout_id', checkoutId)).to.have.length(0);
  });

  it('refuses an outcome other than paid or failed, and a reference it did not issue', async () => {
    const { redirectUrl } = await initiated('500000204');
    const bad = await post(redirectUrl, 'maybe');
    expect(bad.status).to.equal(422);
    expect(await bad.text()).to.contain('outcome must be paid or failed');
    const unknown = await post(`${suite.deps.config.publicBaseUrl}/pay/payments/1-${'0'.repeat(32)}`, 'paid');
    expect(unknown.status).to.equal(404);
    await unknown.text();
  });
});
