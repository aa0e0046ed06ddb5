import { expect } from 'chai';
import type { Order, Product, Store } from '../../../db/models';
import { SandboxGateway } from '../../../shared/providers/sandbox';
import { startCardUpdate } from '../../../shared/services/account/subscriptions';
import { createProduct, createStore } from '../../helpers/builders';
import { hostedMethod } from '../payments/support';
import {
  outboxEntries,
  subscribeThroughSandbox,
  subscriptionProduct,
  useSubscriptionsSuite,
  waitFor,
} from '../subscriptions/support';
import { buy, formTokenIn, get, post, signInByPhone, type AccountLogin, type Buyer } from './support';

/**
 * The account's follow-ups over HTTP, under concurrency and across buyers (docs/account.md): a key claimed
 * twice at once is one claim, another buyer's key is a 404; a saved-card update completed by its return,
 * its webhook and a duplicate webhook at once is saved once; a double submit of "send again" (one page,
 * one nonce) is one resend, through the same service (and audit) as the dashboard's.
 */
describe('the buyer’s account follow-ups', function () {
  this.timeout(120_000);
  const suite = useSubscriptionsSuite();
  let acme: Store;
  let card: Product;
  const P1: Buyer = { phone: '594600001', email: 'one@a41.test' };
  const P2: Buyer = { phone: '594600002', email: 'two@a41.test' };
  let order1: Order;
  let one: AccountLogin;
  let two: AccountLogin;

  before(async () => {
    const { deps, server } = suite;
    acme = await createStore({ name: 'Acme A41' });
    await hostedMethod(deps, acme, 'card', 'sandbox');
    card = await createProduct(acme, { name: 'Game card', type: 'code', price_minor: 4_000 });
    await deps
      .knex('product_codes')
      .insert(['A41-K1', 'A41-K2', 'A41-K3', 'A41-K4'].map((code) => ({ product_id: card.id, code })));
    order1 = await buy(deps, server, acme, card, P1);
    await buy(deps, server, acme, card, P2);
    one = await signInByPhone(deps, server, P1.phone);
    two = await signInByPhone(deps, server, P2.phone);
  });

  const keyOf = async (order: Order) =>
    (await suite.deps
      .knex('product_codes as c')
      .join('order_items as i', 'i.id', 'c.order_item_id')
      .where('i.order_id', order.id)
      .first('c.id', 'c.code')) as { id: number; code: string };

  it('a key claimed twice at once is one claim; another buyer’s key answers 404 and is not claimed', async () => {
    const { server, deps } = suite;
    const key = await keyOf(order1);
    const stranger = await post(
      server,
      `/account/keys/${key.id}/claim`,
      { _csrf: two.csrf, note: 'x' },
      two.cookie,
    );
    expect(stranger.status).to.equal(404);
    expect(await deps.knex('key_claims').where('product_code_id', key.id)).to.have.length(0);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        post(
          server,
          `/account/keys/${key.id}/claim`,
          { _csrf: one.csrf, note: 'does not redeem' },
          one.cookie,
        ),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([303, 409, 409]);
    expect(answers.find((a) => a.status === 409)!.text).to.contain('already has a report');
    expect(await deps.knex('key_claims').where('product_code_id', key.id)).to.have.length(1);
    // The account shows it with its status, escaped.
    const page = await get(server, '/account', one.cookie);
    expect(page.text).to.contain('data-claim-status="open"');
  });

  it('a card update completed by its return, its webhook and a duplicate webhook at once is saved once', async () => {
    const { server, deps } = suite;
    const { monthly } = await subscriptionProduct(acme, { name: 'Pro A41' });
    const { subscription } = await subscribeThroughSandbox(deps, server, acme, monthly, P1.phone);
    const identity = { kind: 'phone' as const, value: `966${P1.phone}` };
    // Another buyer cannot start one.
    const refused = await post(
      server,
      `/account/subscriptions/${subscription.id}/card`,
      { _csrf: two.csrf },
      two.cookie,
    );
    expect(refused.status).to.equal(404);
    const { redirectUrl } = await startCardUpdate(deps, identity, subscription.id);
    const id = redirectUrl.split('/').pop()!;
    const gateway = new SandboxGateway(deps.knex, deps.appSecret, deps.logger, { retryDelaysMs: [] });
    const decided = await gateway.decide(id, 'paid');
    expect(decided.kind).to.equal('decided');
    if (decided.kind !== 'decided') return;
    const hook = `${server.url}/webhooks/sandbox`;
    const [, , back] = await Promise.all([
      gateway.deliver(decided.event, hook),
      gateway.deliver(decided.event, hook),
      get(server, `/account/card/sandbox/return?id=${id}`),
    ]);
    expect(back.status).to.equal(303);
    expect(back.headers.get('location')).to.equal('/account?done=card_updated');
    await waitFor('the card webhook processed', async () => {
      const rows = (await deps
        .knex('webhook_events')
        .whereRaw("payload->>'type' = 'card.saved'")
        .whereRaw("payload->'data'->>'id' = ?", [id])
        .whereNotNull('processed_at')
        .select('id')) as unknown[];
      return rows.length === 1 ? true : undefined;
    });
    const sub = (await deps
      .knex('subscriptions')
      .where('id', subscription.id)
      .first('payment_token_encrypted')) as {
      payment_token_encrypted: string;
    };
    const token = (await deps.knex('sandbox_payments').where('id', id).first('token')) as { token: string };
    expect(deps.cipher.decrypt(sub.payment_token_encrypted)).to.equal(token.token);
    expect(
      await deps.knex('subscription_card_updates').where('subscription_id', subscription.id),
    ).to.have.length(1);
    const audit = await deps
      .knex('merchant_audit_events')
      .where({ action: 'subscription.card_updated', resource_id: subscription.id });
    expect(audit).to.have.length(1);
    // The reference is kept only as its hash; an unknown one is a 404 that changes nothing.
    const stored = (await deps
      .knex('subscription_card_updates')
      .where('subscription_id', subscription.id)
      .first()) as {
      provider_ref_hash: string;
    };
    expect(stored.provider_ref_hash).to.not.contain(id);
    expect((await get(server, '/account/card/sandbox/return?id=sbx_nothing')).status).to.equal(404);
  });

  it('“send again” from one page render sends once for a double submit, audited like the dashboard’s resend', async () => {
    const { server, deps } = suite;
    const key = await keyOf(order1);
    const page = await get(server, '/account', one.cookie);
    const nonce = new RegExp(
      `action="/account/orders/${order1.id}/send-again">[^]*?name="nonce" value="([0-9a-f]{32})"`,
    ).exec(page.text)![1]!;
    const before = (await outboxEntries(server, P1.email)).filter((m) => m.body.includes(key.code)).length;
    const form = { _csrf: formTokenIn(page.text), channel: 'email', nonce };
    const answers = await Promise.all(
      [1, 2].map(() => post(server, `/account/orders/${order1.id}/send-again`, form, one.cookie)),
    );
    expect(answers.map((a) => a.status)).to.deep.equal([303, 303]);
    await waitFor('the e-mail sent again', async () => {
      const n = (await outboxEntries(server, P1.email)).filter((m) => m.body.includes(key.code)).length;
      return n > before ? n : undefined;
    });
    const audit = await deps
      .knex('merchant_audit_events')
      .where({ store_id: acme.id, action: 'order.delivery_resent', resource_id: order1.id })
      .whereRaw("changes->>'channel' = 'email'");
    expect(audit).to.have.length(1);
    expect(audit[0].actor).to.equal('buyer (account)');
    expect(audit[0].changes.key).to.equal(`order-delivery-resend:${order1.id}:email:${nonce}`);
    const emails = await deps
      .knex('emails')
      .where({ purpose: 'order_delivery', key: `order-delivery-resend:${order1.id}:email:${nonce}` });
    expect(emails).to.have.length(1);
  });
});
