import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import { createProduct, createStore, merchantToken } from '../../helpers/builders';
import { withPage } from '../../helpers/browser';
import { guestCheckout } from '../../helpers/checkouts';
import { randomIp } from '../../helpers/otp';
import {
  completionOf,
  guestInitiate,
  hostedMethod,
  orderOf,
  usePaymentsSuite,
  waitFor,
} from '../payments/support';
import { buyer, chooseInSandbox } from './support';

interface OutboxMessage {
  body: string;
  channel: string;
  subject?: string;
}

/**
 * Key replacement claims end to end (docs/fraud.md): a code key bought through the sandbox arrives with a
 * signed claim link per key (message and e-mail); in a real browser the buyer opens it, reports the key;
 * the merchant approves (a replacement from stock, once per key, the old key marked bad and never on sale
 * again) or declines with a note; the buyer is told by message and e-mail and sees the history.
 */
describe('fraud controls: key replacement claims', function () {
  this.timeout(90_000);
  const suite = usePaymentsSuite();
  let store: Store;
  let token: string;
  let keys: Product;

  beforeEach(async () => {
    store = await createStore({ name: 'Key Shop i43' });
    token = await merchantToken(store);
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    keys = await createProduct(store, { type: 'code', price_minor: 5_000, name: 'Game key' });
    await suite.deps
      .knex('product_codes')
      .insert(
        ['GK-AAAA', 'GK-BBBB', 'GK-CCCC'].map((code) => ({ product_id: keys.id, code, status: 'available' })),
      );
  });

  const merchant = (method: string, path: string, json?: unknown) =>
    suite.server.request(path, { method, json, headers: { Authorization: `Bearer ${token}` } });

  const outbox = async (to: string): Promise<OutboxMessage[]> => {
    const res = await suite.server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status, res.text).to.equal(200);
    return (res.body as { messages: OutboxMessage[] }).messages;
  };

  /** Buys one key through the sandbox and answers the buyer and the claim link their delivery carries. */
  async function bought(): Promise<{ who: ReturnType<typeof buyer>; claimUrl: string; orderId: number }> {
    const who = buyer();
    const checkout = await guestCheckout(suite.server, store, { product_id: keys.id }, who);
    const init = await guestInitiate(suite.server, store, checkout.checkoutUrl, 'card');
    const redirect = new URL((init.body.data as { redirect_url: string }).redirect_url);
    const paid = await chooseInSandbox(suite.server, redirect.href, 'paid');
    expect(paid.status).to.equal(200);
    const order = await orderOf(checkout.checkoutId);
    await completionOf(order.id);
    const message = await waitFor('the delivery message', async () =>
      (await outbox(`966${who.customer_phone}`)).find((m) => m.body.includes('GK-')),
    );
    const link = /(\S+\/claims\/new\?t=\S+)/.exec(message.body)?.[1];
    expect(link, message.body).to.be.a('string');
    const mail = await waitFor('the delivery e-mail', async () =>
      (await outbox(who.customer_email)).find((m) => m.body.includes('/claims/new?t=')),
    );
    expect(mail.body).to.contain(new URL(link!).search);
    const url = new URL(link!);
    return { who, claimUrl: `${suite.server.url}${url.pathname}${url.search}`, orderId: order.id };
  }

  it('the buyer reports a key in the browser; the merchant approves; a new key arrives, the old one is never sold again', async () => {
    const { who, claimUrl, orderId } = await bought();
    const claimed = await suite.deps
      .knex('product_codes')
      .where({ product_id: keys.id, status: 'sold' })
      .first<{ id: number; code: string }>('id', 'code');

    await withPage(
      async (page) => {
        await page.goto(`${claimUrl}&lang=en`);
        expect(await page.locator('h1').textContent()).to.equal('A key does not work');
        expect(await page.locator('main').textContent()).to.contain(claimed.code);
        await page
          .getByLabel('What happens when you use the key? (optional)')
          .fill('Says "already redeemed"');
        await page.getByRole('button', { name: 'Report this key' }).click();
        await page.getByRole('status').waitFor();
        expect(await page.getByRole('status').textContent()).to.contain('Your claim was sent to the store');
        expect(await page.locator('.claim').getAttribute('data-status')).to.equal('open');
        // The form is gone: one open claim per key.
        expect(await page.getByRole('button', { name: 'Report this key' }).count()).to.equal(0);
      },
      { locale: 'en-US' },
    );

    const open = await merchant('GET', '/shawarma/claims?status=open');
    expect(open.status, open.text).to.equal(200);
    const claims = open.body.data as { id: number; code: string; order_id: number; buyer_note: string }[];
    expect(claims).to.have.length(1);
    expect(claims[0]).to.include({
      code: claimed.code,
      order_id: orderId,
      buyer_note: 'Says "already redeemed"',
    });

    // Approved twice at once: one replacement, one 409.
    const answers = await Promise.all([
      merchant('POST', `/shawarma/claims/${claims[0]!.id}/approve`, {}),
      merchant('POST', `/shawarma/claims/${claims[0]!.id}/approve`, {}),
    ]);
    expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409]);
    const approved = answers.find((a) => a.status === 200)!.body.data as {
      replacement_code: string;
      status: string;
    };
    expect(approved.status).to.equal('approved');
    expect(approved.replacement_code).to.match(/^GK-/).and.not.equal(claimed.code);

    const old = await suite.deps.knex('product_codes').where('id', claimed.id).first();
    expect(old.status).to.equal('sold');
    expect(old.bad_at).to.not.equal(null);
    const available = await suite.deps
      .knex('product_codes')
      .where({ product_id: keys.id, status: 'available' })
      .pluck('code');
    expect(available).to.have.length(1);
    expect(available).to.not.include(claimed.code);

    // Told by message and e-mail, with the new key.
    await waitFor('the claim message', async () =>
      (await outbox(`966${who.customer_phone}`)).find((m) => m.body.includes(approved.replacement_code)),
    );
    const mail = await waitFor('the claim e-mail', async () =>
      (await outbox(who.customer_email)).find((m) => m.subject?.includes('key claim')),
    );
    expect(mail.body).to.contain(approved.replacement_code);

    // The buyer's page shows the history, in Arabic too.
    await withPage(async (page) => {
      await page.goto(`${claimUrl}&lang=ar`);
      expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
      expect(await page.locator('.claim').getAttribute('data-status')).to.equal('approved');
      expect(await page.locator('.replacement').textContent()).to.equal(approved.replacement_code);
    });
  });

  it('a declined claim carries the merchant’s note to the buyer; a forged link is a 404; a cross-site post is refused', async () => {
    const { who, claimUrl } = await bought();
    const t = new URL(claimUrl).searchParams.get('t')!;
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${suite.server.url}/claims`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Forwarded-For': randomIp(),
          ...headers,
        },
        body: new URLSearchParams(body).toString(),
      });
    const crossSite = await post(
      { t, note: 'x' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(crossSite.status).to.equal(403);
    await crossSite.text();
    const forged = await post({ t: t.replace(/.$/, (c) => (c === '0' ? '1' : '0')) });
    expect(forged.status).to.equal(404);
    await forged.text();
    expect(await suite.deps.knex('key_claims').where('store_id', store.id)).to.have.length(0);

    const sent = await post({ t, note: 'Region locked', lang: 'ar' });
    expect(sent.status).to.equal(303);
    await sent.text();
    const again = await post({ t, note: 'twice' });
    expect(again.status).to.equal(409);
    await again.text();

    const [claim] = (await merchant('GET', '/shawarma/claims')).body.data as { id: number }[];
    const noNote = await merchant('POST', `/shawarma/claims/${claim!.id}/decline`, {});
    expect(noNote.status).to.equal(422);
    const declined = await merchant('POST', `/shawarma/claims/${claim!.id}/decline`, {
      note: 'The key was redeemed from your account on the 27th.',
    });
    expect(declined.status, declined.text).to.equal(200);
    const message = await waitFor('the decline message', async () =>
      (await outbox(`966${who.customer_phone}`)).find((m) => m.body.includes('redeemed from your account')),
    );
    expect(message.body).to.contain('تم رفض');
    // A declined claim leaves the key as it was, and the buyer may claim again.
    expect(
      await suite.deps.knex('product_codes').whereNotNull('bad_at').where('product_id', keys.id),
    ).to.have.length(0);
    const page = await fetch(claimUrl);
    const html = await page.text();
    expect(html).to.contain('data-status="declined"');
    expect(html).to.contain('name="note"');
  });
});
