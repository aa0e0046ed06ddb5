import { expect } from 'chai';
import { BlockedPhone, Customer, CustomerAccessToken, OtpSession, Product, Store } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { LIMITS } from '../../../shared/rate-limits';
import { createCustomer, createProduct, createStore, customerToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { ApiClient, embedClient, latestCode, randomIp, wrongCode } from '../../helpers/otp';

let phoneSeq = 0;
/** A valid Saudi mobile number no other test uses. */
function freshPhone(): string {
  phoneSeq += 1;
  return `55${String(Date.now() % 10_000).padStart(4, '0')}${String(phoneSeq).padStart(3, '0')}`;
}

describe('Embed API authentication (phone OTP)', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let client: ApiClient;

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    store = await createStore();
    product = await createProduct(store);
    client = embedClient(server, store.embed_key);
  });
  after(() => server.close());

  async function start(phone = freshPhone(), extra: Record<string, unknown> = {}) {
    const res = await client.post('/api/embed/auth/start', {
      product_id: product.id,
      country_code: '966',
      phone,
      ...extra,
    });
    return {
      res,
      phone,
      e164: `966${phone}`,
      token: (res.body.data as { session_token: string } | undefined)?.session_token ?? '',
    };
  }

  async function expireSession(token: string): Promise<void> {
    await OtpSession.query(deps.knex)
      .patch({ expires_at: new Date(Date.now() - 1000) })
      .where({ token_hash: sha256(token) });
  }

  async function endCooldown(token: string): Promise<void> {
    await OtpSession.query(deps.knex)
      .patch({ last_sent_at: new Date(Date.now() - 3600_000) })
      .where({ token_hash: sha256(token) });
  }

  describe('auth/start', () => {
    it('opens a session and answers with the spec fields, without the code in the job', async () => {
      const { res, e164 } = await start();
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      const data = res.body.data as Record<string, unknown>;
      expect(data).to.have.keys('session_token', 'expires_in', 'resend_cooldown', 'masked_phone');
      expect(data.expires_in).to.equal(300);
      expect(data.resend_cooldown).to.equal(30);
      expect(data.masked_phone).to.match(/^\*+\d{3}$/);
      expect(String(data.masked_phone).slice(-3)).to.equal(e164.slice(-3));

      const jobs = await deps.queues.otp.getJobs(['waiting']);
      const job = jobs.find((j) => j.data.otpSessionId > 0 && j.data.route === 'whatsapp_first');
      expect(job, 'a whatsapp-first job').to.exist;
      expect(Object.keys(job!.data).sort()).to.deep.equal(['codeVersion', 'locale', 'otpSessionId', 'route']);
      const session = await OtpSession.query(deps.knex).findOne({ e164 });
      expect(session!.code_hmac).to.match(/^[0-9a-f]{64}$/);
      expect(session!.code_encrypted).to.match(/^v2\.[A-Za-z0-9_-]{11}\./);
      expect(session!.token_hash).to.equal(sha256(data.session_token as string));
    });

    it('accepts the country code with +, 00 or nothing, and answers country_code as digits', async () => {
      for (const countryCode of ['+966', '00966', '966']) {
        const phone = freshPhone();
        const { res } = await start(phone, { country_code: countryCode });
        expect(res.status, countryCode).to.equal(200);
        const session = await OtpSession.query(deps.knex).findOne({ e164: `966${phone}` });
        expect(session!.country_code).to.equal('966');
      }
      const phone = freshPhone();
      await Customer.query(deps.knex).insert({
        store_id: store.id,
        first_name: 'A',
        last_name: 'B',
        email: 'a@b.co',
        country_code: '966',
        phone,
        e164: `966${phone}`,
      });
      const { token } = await start(phone, { country_code: '+966' });
      const verified = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: await latestCode(deps, `966${phone}`),
      });
      expect((verified.body.data as { customer: { country_code: string } }).customer.country_code).to.equal(
        '966',
      );
    });

    it('answers 422 with every bad field at once', async () => {
      const res = await client.post('/api/embed/auth/start', {});
      expect(res.status).to.equal(422);
      expect(res.body.success).to.equal(false);
      expect(res.body.message).to.be.a('string');
      expect(res.body.errors).to.have.keys('product_id', 'country_code', 'phone');

      const badPhone = await client.post('/api/embed/auth/start', {
        product_id: product.id,
        country_code: '966',
        phone: '12',
      });
      expect(badPhone.status).to.equal(422);
      expect(badPhone.body.errors).to.have.key('phone');

      const badCc = await client.post('/api/embed/auth/start', {
        product_id: product.id,
        country_code: '+9x',
        phone: '500000001',
      });
      expect(badCc.status).to.equal(422);
    });

    it('answers 404 for an unknown, inactive or foreign product', async () => {
      const inactive = await createProduct(store, { active: false });
      const foreign = await createProduct(await createStore());
      for (const productId of [999_999, inactive.id, foreign.id]) {
        const res = await client.post('/api/embed/auth/start', {
          product_id: productId,
          country_code: '966',
          phone: freshPhone(),
        });
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({
          success: false,
          error_code: 'product_not_found',
          message: 'Product not found',
        });
      }
    });

    it('refuses a blocked phone (store or platform-wide) with PHONE_BLOCKED', async () => {
      const storeBlocked = freshPhone();
      const platformBlocked = freshPhone();
      await BlockedPhone.query(deps.knex).insert([
        { store_id: store.id, country_code: '966', phone: storeBlocked, e164: `966${storeBlocked}` },
        { store_id: null, country_code: '966', phone: platformBlocked, e164: `966${platformBlocked}` },
      ]);
      for (const phone of [storeBlocked, platformBlocked]) {
        const { res } = await start(phone);
        expect(res.status).to.equal(403);
        expect(res.body).to.include({ success: false, error_code: 'PHONE_BLOCKED' });
      }
    });
  });

  describe('auth/verify', () => {
    it('authenticates an existing customer with an embed token bound to the store', async () => {
      const existing = await createCustomer(store, { phone: freshPhone() });
      const { token } = await start(existing.phone);
      const res = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: await latestCode(deps, existing.e164),
      });
      expect(res.status).to.equal(200);
      const data = res.body.data as { status: string; token: string; customer: Record<string, unknown> };
      expect(data.status).to.equal('authenticated');
      expect(data.customer).to.deep.equal({
        id: existing.id,
        firstName: existing.first_name,
        lastName: existing.last_name,
        email: existing.email,
        phone: existing.phone,
        country_code: '966',
      });
      const stored = await CustomerAccessToken.query(deps.knex).findOne({ token_hash: sha256(data.token) });
      expect(stored!.store_id).to.equal(store.id);
      expect(stored!.abilities).to.have.members(['embed:checkout', 'embed:validate']);
      const session = await OtpSession.query(deps.knex).findOne({ token_hash: sha256(token) });
      expect(session!.status).to.equal('verified');
      expect(session!.code_hmac).to.equal(null);
      expect(session!.code_encrypted).to.equal(null);
    });

    it('treats a phone known in another store as existing and gives it a profile in this store', async () => {
      const otherStore = await createStore();
      const elsewhere = await createCustomer(otherStore, {
        phone: freshPhone(),
        first_name: 'Mona',
        last_name: 'Saleh',
        email: 'mona@example.com',
      });
      const { token } = await start(elsewhere.phone);
      const res = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: await latestCode(deps, elsewhere.e164),
      });
      const data = res.body.data as {
        status: string;
        token: string;
        customer: { id: number; firstName: string };
      };
      expect(data.status).to.equal('authenticated');
      expect(data.customer.id).to.not.equal(elsewhere.id);
      expect(data.customer.firstName).to.equal('Mona');
      const adopted = await Customer.query(deps.knex).findById(data.customer.id);
      expect(adopted).to.include({
        store_id: store.id,
        e164: elsewhere.e164,
        email: 'mona@example.com',
        last_name: 'Saleh',
      });
      const stored = await CustomerAccessToken.query(deps.knex).findOne({ token_hash: sha256(data.token) });
      expect(stored!.store_id).to.equal(store.id);
    });

    it('counts wrong codes: INVALID_CODE with remaining attempts, then MAX_ATTEMPTS_REACHED, and the right code is dead', async () => {
      const { token, e164 } = await start();
      const code = await latestCode(deps, e164);
      const first = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: wrongCode(code),
      });
      expect(first.status).to.equal(400);
      expect(first.body).to.include({ success: false, error_code: 'INVALID_CODE', remaining_attempts: 2 });
      expect(first.body.cooldown_seconds).to.be.a('number').within(1, 30);
      const second = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: wrongCode(code),
      });
      expect(second.body).to.include({ error_code: 'INVALID_CODE', remaining_attempts: 1 });
      const third = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: wrongCode(code),
      });
      expect(third.status).to.equal(400);
      expect(third.body).to.include({ error_code: 'MAX_ATTEMPTS_REACHED' });
      const right = await client.post('/api/embed/auth/verify', { session_token: token, code });
      expect(right.body).to.include({ error_code: 'MAX_ATTEMPTS_REACHED' });
    });

    it('reports no cooldown once a resend is allowed', async () => {
      const { token, e164 } = await start();
      const code = await latestCode(deps, e164);
      await endCooldown(token);
      const res = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: wrongCode(code),
      });
      expect(res.body).to.include({
        error_code: 'INVALID_CODE',
        remaining_attempts: 2,
        cooldown_seconds: null,
      });
    });

    it('counts 20 simultaneous wrong codes as 3 attempts at most, and refuses the right code afterwards', async () => {
      const { token, e164 } = await start();
      const code = await latestCode(deps, e164);
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          client.post('/api/embed/auth/verify', { session_token: token, code: wrongCode(code) }),
        ),
      );
      const codes = results.map((r) => r.body.error_code);
      expect(results.every((r) => r.status === 400)).to.equal(true);
      expect(codes.filter((c) => c === 'INVALID_CODE')).to.have.length(2);
      expect(codes.filter((c) => c === 'MAX_ATTEMPTS_REACHED')).to.have.length(18);
      const session = await OtpSession.query(deps.knex).findOne({ token_hash: sha256(token) });
      expect(session!.attempts).to.equal(3);
      const right = await client.post('/api/embed/auth/verify', { session_token: token, code });
      expect(right.body).to.include({ error_code: 'MAX_ATTEMPTS_REACHED' });
    });

    it('lets exactly one of several simultaneous right codes through', async () => {
      const existing = await createCustomer(store, { phone: freshPhone() });
      const { token } = await start(existing.phone);
      const code = await latestCode(deps, existing.e164);
      const results = await Promise.all(
        Array.from({ length: 3 }, () =>
          client.post('/api/embed/auth/verify', { session_token: token, code }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      expect(
        results.filter((r) => r.status === 400 && r.body.message === 'Session already verified'),
      ).to.have.length(2);
    });

    it('answers 404 for an unknown session, 400 once verified, SESSION_EXPIRED after the lifetime, 422 for a malformed code', async () => {
      const unknown = await client.post('/api/embed/auth/verify', {
        session_token: 'ots_nope',
        code: '1234',
      });
      expect(unknown.status).to.equal(404);
      expect(unknown.body).to.deep.equal({
        success: false,
        error_code: 'session_not_found',
        message: 'Session not found',
      });

      const existing = await createCustomer(store, { phone: freshPhone() });
      const { token } = await start(existing.phone);
      const code = await latestCode(deps, existing.e164);
      await client.post('/api/embed/auth/verify', { session_token: token, code });
      const again = await client.post('/api/embed/auth/verify', { session_token: token, code });
      expect(again.status).to.equal(400);
      expect(again.body).to.deep.equal({
        success: false,
        error_code: 'session_already_verified',
        message: 'Session already verified',
      });

      const expiring = await start();
      await expireSession(expiring.token);
      const expired = await client.post('/api/embed/auth/verify', {
        session_token: expiring.token,
        code: '1234',
      });
      expect(expired.status).to.equal(400);
      expect(expired.body).to.include({ success: false, error_code: 'SESSION_EXPIRED' });

      const malformed = await client.post('/api/embed/auth/verify', { session_token: token, code: '12a4' });
      expect(malformed.status).to.equal(422);
      expect(malformed.body.errors).to.have.key('code');
    });

    it('does not find a session of another store', async () => {
      const { token } = await start();
      const otherStore = await createStore();
      const other = embedClient(server, otherStore.embed_key);
      const res = await other.post('/api/embed/auth/verify', { session_token: token, code: '1234' });
      expect(res.status).to.equal(404);
    });
  });

  describe('auth/resend', () => {
    it('refuses during the cooldown with COOLDOWN_ACTIVE and retry_after', async () => {
      const { token } = await start();
      const res = await client.post('/api/embed/auth/resend', { session_token: token });
      expect(res.status).to.equal(429);
      expect(res.body).to.include({ success: false, error_code: 'COOLDOWN_ACTIVE' });
      expect(res.body.retry_after).to.be.a('number').within(1, 30);
      expect(res.headers.get('retry-after')).to.equal(String(res.body.retry_after));
    });

    it('after the cooldown sends a new code by SMS; only the newest code is valid and attempts start again', async () => {
      const existing = await createCustomer(store, { phone: freshPhone() });
      const { token } = await start(existing.phone);
      const oldCode = await latestCode(deps, existing.e164);
      await client.post('/api/embed/auth/verify', { session_token: token, code: wrongCode(oldCode) });
      await client.post('/api/embed/auth/verify', { session_token: token, code: wrongCode(oldCode) });
      await client.post('/api/embed/auth/verify', { session_token: token, code: wrongCode(oldCode) });
      await endCooldown(token);

      const res = await client.post('/api/embed/auth/resend', { session_token: token });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({
        message: 'A new verification code has been sent by SMS.',
        resend_cooldown: 30,
      });
      const jobs = await deps.queues.otp.getJobs(['waiting']);
      expect(jobs.some((j) => j.data.route === 'sms_only')).to.equal(true);
      const newCode = await latestCode(deps, existing.e164);
      const sms = await deps
        .knex('outbound_messages')
        .where({ to: existing.e164 })
        .orderBy('id', 'desc')
        .first();
      expect(sms.channel).to.equal('sms');

      if (newCode !== oldCode) {
        const stale = await client.post('/api/embed/auth/verify', { session_token: token, code: oldCode });
        expect(stale.body).to.include({ error_code: 'INVALID_CODE', remaining_attempts: 2 });
      }
      const ok = await client.post('/api/embed/auth/verify', { session_token: token, code: newCode });
      expect(ok.status).to.equal(200);
      expect((ok.body.data as { status: string }).status).to.equal('authenticated');
    });

    it('answers 404 unknown, 400 verified, SESSION_EXPIRED expired', async () => {
      const unknown = await client.post('/api/embed/auth/resend', { session_token: 'ots_nope' });
      expect(unknown.status).to.equal(404);
      expect(unknown.body.message).to.equal('Session not found');

      const existing = await createCustomer(store, { phone: freshPhone() });
      const verified = await start(existing.phone);
      await client.post('/api/embed/auth/verify', {
        session_token: verified.token,
        code: await latestCode(deps, existing.e164),
      });
      await endCooldown(verified.token);
      const res = await client.post('/api/embed/auth/resend', { session_token: verified.token });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('Session already verified');

      const expiring = await start();
      await expireSession(expiring.token);
      const expired = await client.post('/api/embed/auth/resend', { session_token: expiring.token });
      expect(expired.status).to.equal(400);
      expect(expired.body.error_code).to.equal('SESSION_EXPIRED');
    });

    it('allows 3 resends per phone in 10 minutes, then RATE_LIMIT_EXCEEDED', async () => {
      const { token } = await start();
      for (let i = 0; i < 3; i += 1) {
        await endCooldown(token);
        const ok = await client.post('/api/embed/auth/resend', { session_token: token });
        expect(ok.status, `resend ${i + 1}`).to.equal(200);
      }
      await endCooldown(token);
      const limited = await client.post('/api/embed/auth/resend', { session_token: token });
      expect(limited.status).to.equal(429);
      expect(limited.body).to.include({ success: false, error_code: 'RATE_LIMIT_EXCEEDED' });
      expect(limited.body.retry_after).to.be.a('number').within(1, 600);
    });

    it('allows 20 resends per IP a day', async () => {
      const ip = randomIp();
      const fromIp = embedClient(server, store.embed_key, ip);
      await deps.services.rateLimiter.consume([{ def: LIMITS.otpResendPerIp, key: ip, cost: 20 }]);
      const { token } = await start();
      await endCooldown(token);
      const res = await fromIp.post('/api/embed/auth/resend', { session_token: token });
      expect(res.status).to.equal(429);
      expect(res.body.error_code).to.equal('RATE_LIMIT_EXCEEDED');
    });
  });

  describe('start limits', () => {
    it('allows 10 starts per phone a day', async () => {
      const phone = freshPhone();
      for (let i = 0; i < 10; i += 1) {
        const { res } = await start(phone);
        expect(res.status, `start ${i + 1}`).to.equal(200);
      }
      const { res } = await start(phone);
      expect(res.status).to.equal(429);
      expect(res.body).to.include({ success: false, error_code: 'RATE_LIMIT_EXCEEDED' });
      expect(res.body.retry_after).to.be.a('number').above(3600);
    });

    it('allows 50 starts per IP a day', async () => {
      const ip = randomIp();
      await deps.services.rateLimiter.consume([{ def: LIMITS.otpStartPerIp, key: ip, cost: 50 }]);
      const res = await embedClient(server, store.embed_key, ip).post('/api/embed/auth/start', {
        product_id: product.id,
        country_code: '966',
        phone: freshPhone(),
      });
      expect(res.status).to.equal(429);
      expect(res.body.error_code).to.equal('RATE_LIMIT_EXCEEDED');
    });
  });

  describe('auth/complete', () => {
    async function verifiedNewPhone(): Promise<{ token: string; e164: string }> {
      const { token, e164 } = await start();
      const res = await client.post('/api/embed/auth/verify', {
        session_token: token,
        code: await latestCode(deps, e164),
      });
      expect(res.body.data).to.deep.equal({ status: 'needs_registration', session_token: token });
      return { token, e164 };
    }

    it('registers the customer once and returns an embed token; a second call is refused', async () => {
      const { token, e164 } = await verifiedNewPhone();
      const body = { session_token: token, firstName: 'Sara', lastName: 'Ali', email: 'Sara@Example.com' };
      const res = await client.post('/api/embed/auth/complete', body);
      expect(res.status).to.equal(200);
      const data = res.body.data as { customer: Record<string, unknown>; token: string };
      expect(data.customer).to.include({
        firstName: 'Sara',
        lastName: 'Ali',
        email: 'sara@example.com',
        country_code: '966',
      });
      expect(data.token).to.match(/^cet_/);
      expect(await Customer.query(deps.knex).where({ store_id: store.id, e164 }).resultSize()).to.equal(1);

      const again = await client.post('/api/embed/auth/complete', body);
      expect(again.status).to.equal(400);
      expect(again.body).to.deep.equal({
        success: false,
        error_code: 'registration_not_allowed',
        message: 'Registration not allowed for this session',
      });
    });

    it('registers once under simultaneous completes', async () => {
      const { token, e164 } = await verifiedNewPhone();
      const body = { session_token: token, firstName: 'Omar', lastName: 'K', email: 'omar@example.com' };
      const results = await Promise.all(
        Array.from({ length: 5 }, () => client.post('/api/embed/auth/complete', body)),
      );
      expect(results.filter((r) => r.status === 200)).to.have.length(1);
      expect(results.filter((r) => r.status === 400)).to.have.length(4);
      expect(await Customer.query(deps.knex).where({ store_id: store.id, e164 }).resultSize()).to.equal(1);
    });

    it('answers 422 for missing fields or a bad e-mail, 400 for an unverified, unknown or expired session', async () => {
      const { token } = await verifiedNewPhone();
      const missing = await client.post('/api/embed/auth/complete', { session_token: token });
      expect(missing.status).to.equal(422);
      expect(missing.body.errors).to.have.keys('firstName', 'lastName', 'email');
      const badEmail = await client.post('/api/embed/auth/complete', {
        session_token: token,
        firstName: 'A',
        lastName: 'B',
        email: 'nope',
      });
      expect(badEmail.status).to.equal(422);
      expect(badEmail.body.errors).to.have.key('email');
      const tooLong = await client.post('/api/embed/auth/complete', {
        session_token: token,
        firstName: 'x'.repeat(101),
        lastName: 'B',
        email: 'a@b.co',
      });
      expect(tooLong.body.errors).to.have.key('firstName');

      const pending = await start();
      const fields = { firstName: 'A', lastName: 'B', email: 'a@b.co' };
      for (const sessionToken of [pending.token, 'ots_unknown']) {
        const res = await client.post('/api/embed/auth/complete', { session_token: sessionToken, ...fields });
        expect(res.status).to.equal(400);
        expect(res.body.message).to.equal('Invalid or expired session');
      }
      const expiring = await verifiedNewPhone();
      await expireSession(expiring.token);
      const expired = await client.post('/api/embed/auth/complete', {
        session_token: expiring.token,
        ...fields,
      });
      expect(expired.status).to.equal(400);
      expect(expired.body.message).to.equal('Invalid or expired session');
    });
  });

  describe('auth/validate', () => {
    it('restores a saved session: valid with the customer', async () => {
      const customer = await createCustomer(store);
      const token = await customerToken(customer, 'embed');
      const res = await client.post(
        '/api/embed/auth/validate',
        { product_id: product.id },
        { Authorization: `Bearer ${token}` },
      );
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.include({ valid: true });
      expect((res.body.data as { customer: { id: number } }).customer.id).to.equal(customer.id);
    });

    it('answers 401 without or with a bad token, 403 for a product of another store, 422 for a bad product id', async () => {
      const customer = await createCustomer(store);
      const token = await customerToken(customer, 'embed');
      const none = await client.post('/api/embed/auth/validate', { product_id: product.id });
      expect(none.status).to.equal(401);
      const bad = await client.post(
        '/api/embed/auth/validate',
        { product_id: product.id },
        { Authorization: 'Bearer cet_nope' },
      );
      expect(bad.status).to.equal(401);
      expect(bad.body.success).to.equal(false);

      const otherStore = await createStore();
      const foreignProduct = await createProduct(otherStore);
      const foreign = await embedClient(server, otherStore.embed_key).post(
        '/api/embed/auth/validate',
        { product_id: foreignProduct.id },
        { Authorization: `Bearer ${token}` },
      );
      expect(foreign.status).to.equal(403);
      expect(foreign.body).to.deep.equal({
        success: false,
        error_code: 'token_not_for_product',
        message: 'Token not valid for this product',
      });

      for (const productId of ['abc', 999_999]) {
        const res = await client.post(
          '/api/embed/auth/validate',
          { product_id: productId },
          { Authorization: `Bearer ${token}` },
        );
        expect(res.status).to.equal(422);
        expect(res.body.errors).to.have.key('product_id');
      }
    });

    it('refuses a storefront token', async () => {
      const customer = await createCustomer(store);
      const token = await customerToken(customer, 'storefront');
      const res = await client.post(
        '/api/embed/auth/validate',
        { product_id: product.id },
        { Authorization: `Bearer ${token}` },
      );
      expect(res.status).to.be.oneOf([401, 403]);
      expect(res.body.success).to.equal(false);
    });
  });
});
