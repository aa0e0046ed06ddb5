import crypto from 'node:crypto';
import { expect } from 'chai';
import { BlockedPhone, CustomerAccessToken, OtpSession, Product, Store } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { otpGuardsOf } from '../../../shared/services/otp/factory';
import { MAX_FAILURES_PER_PHONE_PER_DAY, OtpGuards } from '../../../shared/services/otp/guards';
import { revokePhoneTokens } from '../../../shared/services/tokens';
import { createCustomer, createProduct, createStore, customerToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { embedClient, latestCode, randomIp, storefrontClient, wrongCode } from '../../helpers/otp';

let phoneSeq = 0;
/** A valid Saudi mobile number no other test of the run uses. */
function freshPhone(): string {
  phoneSeq += 1;
  return `50${String(crypto.randomInt(10_000)).padStart(4, '0')}${String(phoneSeq).padStart(3, '0')}`;
}

const dataOf = (res: TestResponse) => (res.body.data ?? {}) as Record<string, unknown>;

/**
 * What keeps phone sign-in from being guessed or pumped (docs/security.md): the failure cap per phone
 * and day of the operator contract (docs/operations.md), limits that do not reset on resend or multiply
 * with stores, the per-store message budget, the calling codes a store accepts, and sign-out.
 */
describe('OTP abuse guards', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;
  let embedStore: Store;
  let product: Product;
  let shopStore: Store;
  let shopDomain: string;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    embedStore = await createStore();
    product = await createProduct(embedStore);
    shopDomain = `shop-${crypto.randomBytes(4).toString('hex')}.example.test`;
    shopStore = await createStore({ domains: [shopDomain] });
  });
  after(() => server.close());

  const embed = (ip?: string) => embedClient(server, embedStore.embed_key, ip);
  const shop = (ip?: string, domain = shopDomain) => storefrontClient(server, domain, ip);
  const endCooldown = (token: string) =>
    OtpSession.query(deps.knex)
      .patch({ last_sent_at: new Date(Date.now() - 3600_000) })
      .where({ token_hash: sha256(token) });

  async function embedStart(phone: string): Promise<string> {
    const res = await embed().post('/api/embed/auth/start', {
      product_id: product.id,
      country_code: '966',
      phone,
    });
    expect(res.status, res.text).to.equal(200);
    return dataOf(res).session_token as string;
  }
  async function shopStart(phone: string): Promise<string> {
    const res = await shop().post('/api/auth/start', { country_code: '966', phone });
    expect(res.status, res.text).to.equal(200);
    return dataOf(res).session_token as string;
  }

  describe('failed codes per phone per day', () => {
    it('allows 10 failures across sessions, resends, stores and both APIs; then even the right code is refused', async () => {
      const phone = freshPhone();
      const e164 = `966${phone}`;
      let failures = 0;
      const guessEmbed = async (token: string, times: number) => {
        for (let i = 0; i < times; i += 1) {
          const res = await embed().post('/api/embed/auth/verify', {
            session_token: token,
            code: wrongCode(await latestCode(deps, e164)),
          });
          expect(res.status, res.text).to.equal(400);
          failures += 1;
        }
      };
      const guessShop = async (token: string, times: number) => {
        const answers: number[] = [];
        for (let i = 0; i < times; i += 1) {
          const res = await shop().post('/api/auth/verify', {
            session_token: token,
            code: wrongCode(await latestCode(deps, e164)),
          });
          answers.push(res.status);
          failures += 1;
        }
        return answers;
      };

      // Embed: a session's three attempts, then a resend (new code, three attempts again): 6 failures.
      const first = await embedStart(phone);
      await guessEmbed(first, 3);
      await endCooldown(first);
      const resent = await embed().post('/api/embed/auth/resend', { session_token: first });
      expect(resent.status, resent.text).to.equal(200);
      await guessEmbed(first, 3);

      // Storefront of another store, same phone: 3 more, then one after a resend: the 10th.
      const second = await shopStart(phone);
      expect(await guessShop(second, 3)).to.deep.equal([400, 400, 400]);
      await endCooldown(second);
      expect((await shop().post('/api/auth/resend', { session_token: second })).status).to.equal(200);
      const tenth = await guessShop(second, 1);
      expect(failures).to.equal(MAX_FAILURES_PER_PHONE_PER_DAY);
      expect(tenth, 'the tenth failure closes the day').to.deep.equal([429]);
      expect(await otpGuardsOf(deps).failuresToday(e164)).to.equal(10);

      // A fresh session with the right code: refused on both APIs until the day is over.
      const fresh = await embedStart(phone);
      const embedRight = await embed().post('/api/embed/auth/verify', {
        session_token: fresh,
        code: await latestCode(deps, e164),
      });
      expect(embedRight.status, embedRight.text).to.equal(400);
      expect(embedRight.body.error_code).to.equal('MAX_ATTEMPTS_REACHED');

      const freshShop = await shopStart(phone);
      const shopRight = await shop().post('/api/auth/verify', {
        session_token: freshShop,
        code: await latestCode(deps, e164),
      });
      expect(shopRight.status, shopRight.text).to.equal(429);
      expect(Number(shopRight.headers.get('retry-after'))).to.be.within(1, 86_400);
      // A refused verification is no failure of its own: the count stays at the cap.
      expect(await otpGuardsOf(deps).failuresToday(e164)).to.equal(10);
    });

    it('the right code does not count: 9 failures, a sign-in, and the phone still has one left', async () => {
      const phone = freshPhone();
      const e164 = `966${phone}`;
      const guards = otpGuardsOf(deps);
      for (let i = 0; i < 9; i += 1) await guards.takeFailureSlot(e164);
      const token = await embedStart(phone);
      const ok = await embed().post('/api/embed/auth/verify', {
        session_token: token,
        code: await latestCode(deps, e164),
      });
      expect(ok.status, ok.text).to.equal(200);
      expect(await guards.failuresToday(e164)).to.equal(9);
    });

    it('counts 30 simultaneous wrong codes over 10 sessions as exactly 10 failures', async () => {
      const phone = freshPhone();
      const e164 = `966${phone}`;
      const tokens: string[] = [];
      for (let i = 0; i < 10; i += 1) tokens.push(await embedStart(phone));
      await latestCode(deps, e164);
      const answers = await Promise.all(
        tokens.flatMap((token) =>
          [0, 1, 2].map(() => embed().post('/api/embed/auth/verify', { session_token: token, code: '0000' })),
        ),
      );
      // '0000' could be a session's real code (1 in 10,000): such an answer is a 200 and no failure.
      const failed = answers.filter((a) => a.status === 400);
      expect(failed.length).to.be.at.least(29);
      for (const a of failed) expect(a.body.error_code).to.be.oneOf(['INVALID_CODE', 'MAX_ATTEMPTS_REACHED']);
      expect(await otpGuardsOf(deps).failuresToday(e164)).to.equal(MAX_FAILURES_PER_PHONE_PER_DAY);
    });
  });

  describe('SMS pumping', () => {
    it('limits Storefront resends to 20 a day per client IP, whatever the phone or store', async () => {
      const ip = randomIp();
      const otherDomain = `shop-${crypto.randomBytes(4).toString('hex')}.example.test`;
      await createStore({ domains: [otherDomain] });
      const statuses: number[] = [];
      for (let i = 0; i < 21; i += 1) {
        const domain = i % 2 === 0 ? shopDomain : otherDomain;
        const started = await shop(undefined, domain).post('/api/auth/start', {
          country_code: '966',
          phone: freshPhone(),
        });
        const token = dataOf(started).session_token as string;
        await endCooldown(token);
        statuses.push((await shop(ip, domain).post('/api/auth/resend', { session_token: token })).status);
      }
      expect(statuses.slice(0, 20).every((s) => s === 200)).to.equal(true);
      expect(statuses[20]).to.equal(429);
    });

    it('counts starts per client IP once across stores: the 51st start from one address is 429', async () => {
      const ip = randomIp();
      const otherDomain = `shop-${crypto.randomBytes(4).toString('hex')}.example.test`;
      await createStore({ domains: [otherDomain] });
      const statuses: number[] = [];
      for (let i = 0; i < 51; i += 1) {
        const res = await shop(ip, i % 2 === 0 ? shopDomain : otherDomain).post('/api/auth/start', {
          country_code: '966',
          phone: freshPhone(),
        });
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s === 200)).to.have.length(50);
      expect(statuses[50]).to.equal(429);
    });

    it('refuses codes past the store’s daily message budget, with an error log line and a gauge', async () => {
      const budgetDeps = await isolatedDeps({ TRUST_PROXY: '1', OTP_STORE_DAILY_MESSAGES: '3' });
      const budgetServer = await startServer(budgetDeps);
      try {
        const store = await createStore();
        const item = await createProduct(store);
        const client = embedClient(budgetServer, store.embed_key);
        const start = () =>
          client.post('/api/embed/auth/start', {
            product_id: item.id,
            country_code: '966',
            phone: freshPhone(),
          });
        const first = await start();
        expect(first.status).to.equal(200);
        await endCooldown(dataOf(first).session_token as string);
        const resend = await client.post('/api/embed/auth/resend', {
          session_token: dataOf(first).session_token,
        });
        expect(resend.status, 'a resend spends the budget too').to.equal(200);
        expect((await start()).status).to.equal(200);
        const over = await start();
        expect(over.status, over.text).to.equal(429);
        expect(over.body.error_code).to.equal('RATE_LIMIT_EXCEEDED');
        expect(String(over.body.message)).to.match(/cannot send more verification codes today/);
        // Another store keeps its own budget.
        const other = await createStore();
        const otherItem = await createProduct(other);
        const otherStart = await embedClient(budgetServer, other.embed_key).post('/api/embed/auth/start', {
          product_id: otherItem.id,
          country_code: '966',
          phone: freshPhone(),
        });
        expect(otherStart.status).to.equal(200);

        const metrics = await budgetServer.request('/metrics');
        expect(metrics.text).to.match(/^matjar_otp_budget_exhausted_stores 1$/m);
      } finally {
        await budgetServer.close();
      }
    });

    it('logs the exhausted budget once per store and day at error level', async () => {
      const lines: { obj: Record<string, unknown>; msg: string }[] = [];
      const guards = new OtpGuards(
        deps.redis,
        { error: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } as never,
        { prefix: `${deps.config.queuePrefix}_log`, storeDailyMessages: 2, budgetEnabled: true },
      );
      const results = [];
      for (let i = 0; i < 5; i += 1) results.push(await guards.spendMessage(4242));
      expect(results).to.deep.equal([true, true, false, false, false]);
      expect(lines).to.have.length(1);
      expect(lines[0]!.msg).to.match(/OTP message budget of a store exhausted/);
      expect(lines[0]!.obj).to.include({ storeId: 4242, budget: 2 });
    });

    it('accepts only the calling codes the store allows (422 naming country_code)', async () => {
      const store = await createStore({ allowed_country_codes: ['966'] });
      const item = await createProduct(store);
      const client = embedClient(server, store.embed_key);
      const uae = await client.post('/api/embed/auth/start', {
        product_id: item.id,
        country_code: '971',
        phone: '501234567',
      });
      expect(uae.status, uae.text).to.equal(422);
      expect(uae.body.errors).to.have.keys('country_code');
      const saudi = await client.post('/api/embed/auth/start', {
        product_id: item.id,
        country_code: '966',
        phone: freshPhone(),
      });
      expect(saudi.status, saudi.text).to.equal(200);
    });
  });

  describe('signing out and blocking', () => {
    it('Embed: auth/logout revokes the token; it then answers 401', async () => {
      const token = await customerToken(await createCustomer(embedStore), 'embed');
      const headers = { Authorization: `Bearer ${token}` };
      // Another store's key cannot sign the token out.
      const otherStore = await createStore();
      const foreign = await embedClient(server, otherStore.embed_key).post(
        '/api/embed/auth/logout',
        {},
        headers,
      );
      expect(foreign.status).to.equal(401);
      const valid = await embed().post('/api/embed/auth/validate', { product_id: product.id }, headers);
      expect(valid.status).to.equal(200);
      const out = await embed().post('/api/embed/auth/logout', {}, headers);
      expect(out.status, out.text).to.equal(200);
      expect(dataOf(out)).to.deep.equal({ signed_out: true });
      const after = await embed().post('/api/embed/auth/validate', { product_id: product.id }, headers);
      expect(after.status).to.equal(401);
      expect((await embed().post('/api/embed/auth/logout', {}, headers)).status).to.equal(401);
    });

    it('Storefront: /api/auth/logout revokes the token; other tokens of the customer stay', async () => {
      const customer = await createCustomer(shopStore);
      const token = await customerToken(customer, 'storefront');
      const other = await customerToken(customer, 'storefront');
      const get = (t: string) =>
        server.request('/api/wishlist', {
          headers: { Host: shopDomain, 'X-Forwarded-For': randomIp(), Authorization: `Bearer ${t}` },
        });
      expect((await get(token)).status).to.equal(200);
      // Another store's storefront cannot sign the token out.
      const otherDomain = `shop-${crypto.randomBytes(4).toString('hex')}.example.test`;
      await createStore({ domains: [otherDomain] });
      const foreign = await shop(undefined, otherDomain).post(
        '/api/auth/logout',
        {},
        { Authorization: `Bearer ${token}` },
      );
      expect(foreign.status).to.equal(401);
      expect((await get(token)).status).to.equal(200);
      const out = await shop().post('/api/auth/logout', {}, { Authorization: `Bearer ${token}` });
      expect(out.status, out.text).to.equal(200);
      expect((await get(token)).status).to.equal(401);
      expect((await get(other)).status).to.equal(200);
    });

    it('blocking a phone ends its sessions on both APIs, and revokePhoneTokens revokes them', async () => {
      const shopCustomer = await createCustomer(shopStore);
      const shopToken = await customerToken(shopCustomer, 'storefront');
      const embedCustomer = await createCustomer(embedStore, {
        country_code: shopCustomer.country_code,
        phone: shopCustomer.phone,
        e164: shopCustomer.e164,
      });
      const embedToken = await customerToken(embedCustomer, 'embed');
      const wishlist = () =>
        server.request('/api/wishlist', {
          headers: { Host: shopDomain, 'X-Forwarded-For': randomIp(), Authorization: `Bearer ${shopToken}` },
        });
      expect((await wishlist()).status).to.equal(200);

      // Blocked in the shop only: the shop's token dies, the embed store's lives.
      await BlockedPhone.query(deps.knex).insert({
        store_id: shopStore.id,
        country_code: shopCustomer.country_code,
        phone: shopCustomer.phone,
        e164: shopCustomer.e164,
      });
      expect((await wishlist()).status).to.equal(401);
      const validate = () =>
        embed().post(
          '/api/embed/auth/validate',
          { product_id: product.id },
          { Authorization: `Bearer ${embedToken}` },
        );
      expect((await validate()).status).to.equal(200);

      expect(await revokePhoneTokens(deps.knex, shopStore.id, shopCustomer.e164)).to.equal(1);
      const rows = await CustomerAccessToken.query(deps.knex).whereIn('customer_id', [
        shopCustomer.id,
        embedCustomer.id,
      ]);
      expect(rows.filter((r) => r.revoked_at !== null).map((r) => r.customer_id)).to.deep.equal([
        shopCustomer.id,
      ]);

      // Blocked on the whole platform: every store's token is refused.
      await BlockedPhone.query(deps.knex).insert({
        store_id: null,
        country_code: shopCustomer.country_code,
        phone: shopCustomer.phone,
        e164: shopCustomer.e164,
      });
      expect((await validate()).status).to.equal(401);
    });
  });
});
