import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { inviteStaff } from '../../../shared/services/staff/accounts';
import { createSession } from '../../../shared/services/staff/sessions';
import { base32Decode, hotp, TOTP_STEP_SECONDS } from '../../../shared/services/staff/totp';
import { loadFixture } from '../../../shared/services/seed';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { deliverQueuedOtps, randomIp } from '../../helpers/otp';

/**
 * The merchant dashboard's sign-in as an outside reviewer would attack it, through HTTP only: codes of 6
 * digits read from GET /__dev/outbox; the same answer for a phone of no store as for a merchant's; the
 * throttles of sending and checking codes (429, Retry-After, the page in Arabic or English); and the
 * authenticator app: set up, asked for after the phone code in the same browser only, each code and
 * recovery code taken once, switched off only with a current code (docs/dashboard.md).
 */
describe('merchant dashboard sign-in, hardened', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;
  let storeId: number;
  const OWNER = '500990601';
  const STAFF = '500990602';
  const MANAGER = '500990603';

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    const manifest = await loadFixture(deps, {
      stores: [
        {
          ref: 'hardened',
          name: 'Hardened Store',
          currency: 'SAR',
          owner: { name: 'Owner', country_code: '966', phone: OWNER },
        },
      ],
    });
    storeId = manifest.stores.hardened.id;
    await inviteStaff(deps.knex, storeId, null, {
      name: 'Staff',
      country_code: '966',
      phone: STAFF,
      role: 'support',
    });
    await inviteStaff(deps.knex, storeId, null, {
      name: 'Manager',
      country_code: '966',
      phone: MANAGER,
      role: 'manager',
    });
  });

  after(async () => {
    await server?.close();
  });

  /** One browser: its own cookies (Path=/merchant) and its own client address. */
  class Browser {
    readonly cookies = new Map<string, string>();
    constructor(readonly ip = randomIp()) {}

    async get(path: string): Promise<TestResponse> {
      return this.keep(await server.request(path, { headers: this.headers(), redirect: 'manual' }));
    }

    async post(path: string, fields: Record<string, string>): Promise<TestResponse> {
      return this.keep(
        await server.request(path, {
          method: 'POST',
          headers: { ...this.headers(), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
          redirect: 'manual',
        }),
      );
    }

    private headers(): Record<string, string> {
      const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      return { 'X-Forwarded-For': this.ip, ...(cookie ? { Cookie: cookie } : {}) };
    }

    private keep(res: TestResponse): TestResponse {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq);
        if (/Max-Age=0(;|$)/.test(line)) this.cookies.delete(name);
        else this.cookies.set(name, pair.slice(eq + 1));
      }
      return res;
    }
  }

  /** The newest code sent to this number, as the operator contract says: the only run of 4 to 8 digits. */
  async function codeFromOutbox(e164: string): Promise<string> {
    await deliverQueuedOtps(deps);
    const res = await server.request(`/__dev/outbox?to=${e164}`);
    const messages = res.body.messages as { body: string }[];
    const runs = messages[0]?.body.match(/(?<!\d)\d{4,8}(?!\d)/g);
    expect(runs, `a code for ${e164}`).to.have.length(1);
    return runs![0];
  }

  async function outboxFor(e164: string): Promise<unknown[]> {
    await deliverQueuedOtps(deps);
    return (await server.request(`/__dev/outbox?to=${e164}`)).body.messages as unknown[];
  }

  /** Phone and code in `browser`; returns the answer to the code. */
  async function phoneStep(browser: Browser, phone: string): Promise<TestResponse> {
    const start = await browser.post('/merchant/signin', { country_code: '966', phone });
    expect(start.status).to.equal(303);
    return browser.post('/merchant/code', { code: await codeFromOutbox(`966${phone}`) });
  }

  const formTokenOf = (res: TestResponse): string => /name="_csrf" value="([^"]+)"/.exec(res.text)![1];
  const stepNow = (): number => Math.floor(Date.now() / 1000 / TOTP_STEP_SECONDS);

  it('sends a 6-digit code, refuses a 4-digit answer with the form, and signs in with the code', async () => {
    const browser = new Browser();
    const start = await browser.post('/merchant/signin?lang=en', { country_code: '966', phone: MANAGER });
    expect(start.status).to.equal(303);
    expect(start.headers.get('location')).to.equal('/merchant/code');
    const code = await codeFromOutbox(`966${MANAGER}`);
    expect(code).to.match(/^\d{6}$/);
    const page = await browser.get('/merchant/code?lang=en');
    expect(page.text).to.contain('We sent a 6-digit code').and.contain('maxlength="6"');
    const short = await browser.post('/merchant/code?lang=en', { code: code.slice(0, 4) });
    expect(short.status).to.equal(422);
    expect(short.text).to.contain('The code is 6 digits.');
    const done = await browser.post('/merchant/code', { code });
    expect(done.status).to.equal(303);
    expect(done.headers.get('location')).to.equal('/merchant');
    expect(browser.cookies.has('matjar_merchant')).to.equal(true);
    expect((await browser.get('/merchant')).status).to.equal(200);
  });

  it('answers a phone of no store exactly as a merchant’s, and sends it nothing', async () => {
    const merchant = new Browser();
    const stranger = new Browser();
    const STRANGER = '500990699';
    const a = await merchant.post('/merchant/signin', { country_code: '966', phone: STAFF });
    const b = await stranger.post('/merchant/signin', { country_code: '966', phone: STRANGER });
    expect([a.status, a.headers.get('location')]).to.deep.equal([303, '/merchant/code']);
    expect([b.status, b.headers.get('location')]).to.deep.equal([303, '/merchant/code']);
    const cookieShape = (res: TestResponse) =>
      res.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, '=…'));
    expect(cookieShape(b)).to.deep.equal(cookieShape(a));
    // The code pages differ only in the last digits of the number.
    const pageA = await merchant.get('/merchant/code?lang=en');
    const pageB = await stranger.get('/merchant/code?lang=en');
    expect(pageB.status).to.equal(pageA.status);
    expect(pageB.text.replace(/\d{2,4}(?=\u2069)/, 'NN')).to.equal(
      pageA.text.replace(/\d{2,4}(?=\u2069)/, 'NN'),
    );
    // A wrong code reads the same; a new code by SMS reads the same.
    const wrongA = await merchant.post('/merchant/code?lang=en', { code: '000000' });
    const wrongB = await stranger.post('/merchant/code?lang=en', { code: '000000' });
    expect([wrongB.status, /role="alert">([^<]*)/.exec(wrongB.text)![1]]).to.deep.equal([
      wrongA.status,
      /role="alert">([^<]*)/.exec(wrongA.text)![1],
    ]);
    expect(await outboxFor(`966${STAFF}`)).to.have.length(1);
    expect(await outboxFor(`966${STRANGER}`)).to.deep.equal([]);
    await deps.knex('otp_sessions').update({ last_sent_at: new Date(Date.now() - 60_000) });
    const resendA = await merchant.post('/merchant/code/resend?lang=en', {});
    const resendB = await stranger.post('/merchant/code/resend?lang=en', {});
    expect(resendB.status).to.equal(resendA.status).and.equal(200);
    expect(await outboxFor(`966${STAFF}`)).to.have.length(2);
    expect(await outboxFor(`966${STRANGER}`)).to.deep.equal([]);
  });

  it('throttles codes sent per IP and per phone: 429, Retry-After, the page in English or Arabic', async () => {
    const office = new Browser();
    const answers: TestResponse[] = [];
    for (let i = 0; i < 11; i += 1) {
      answers.push(
        await office.post('/merchant/signin?lang=en', { country_code: '966', phone: `5000007${10 + i}` }),
      );
    }
    expect(answers.slice(0, 10).map((r) => r.status)).to.deep.equal(Array(10).fill(303));
    expect(answers[10].status).to.equal(429);
    expect(Number(answers[10].headers.get('retry-after'))).to.be.within(1, 900);
    expect(answers[10].text).to.contain('Too many codes were requested. Try again in');
    const arabic = await office.post('/merchant/signin?lang=ar', { country_code: '966', phone: '500000799' });
    expect(arabic.status).to.equal(429);
    expect(arabic.text).to.contain('طُلبت رموز كثيرة').and.contain('dir="rtl"');

    const phone = '500000798';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await new Browser().post('/merchant/signin', { country_code: '966', phone })).status);
    }
    expect(statuses).to.deep.equal([303, 303, 303, 303, 303, 429]);
  });

  it('throttles codes checked per IP and per phone, before the comparison', async () => {
    // One address trying wrong codes on many numbers: 20 checks in the quarter hour, then 429.
    const guesser = new Browser();
    const statuses: number[] = [];
    for (let n = 0; n < 7; n += 1) {
      expect(
        (await guesser.post('/merchant/signin', { country_code: '966', phone: `5000008${10 + n}` })).status,
      ).to.equal(303);
      for (let i = 0; i < 3; i += 1)
        statuses.push((await guesser.post('/merchant/code', { code: '000000' })).status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 422)).to.equal(true);
    expect(statuses[20]).to.equal(429);

    // One number tried from many addresses: 10 checks in the quarter hour, then 429 even for the right code.
    const phone = '500000830';
    await inviteStaff(deps.knex, storeId, null, {
      name: 'Target',
      country_code: '966',
      phone,
      role: 'support',
    });
    let checks = 0;
    while (checks < 10) {
      const browser = new Browser();
      await browser.post('/merchant/signin', { country_code: '966', phone });
      for (let i = 0; i < 3 && checks < 10; i += 1, checks += 1) {
        expect((await browser.post('/merchant/code', { code: '000000' })).status).to.equal(422);
      }
    }
    const browser = new Browser();
    await browser.post('/merchant/signin?lang=en', { country_code: '966', phone });
    const last = await browser.post('/merchant/code?lang=en', { code: await codeFromOutbox(`966${phone}`) });
    expect(last.status).to.equal(429);
    expect(Number(last.headers.get('retry-after'))).to.be.within(1, 900);
    expect(last.text).to.contain('Too many codes were tried. Try again in');
    expect(browser.cookies.has('matjar_merchant')).to.equal(false);
  });

  it('sets up an authenticator app, then asks for it after the phone code, in that browser only', async () => {
    const owner = new Browser();
    expect((await phoneStep(owner, OWNER)).headers.get('location')).to.equal('/merchant');
    const off = await owner.get('/merchant/security?lang=en');
    expect(off.status).to.equal(200);
    expect(off.text).to.contain('Two-step sign-in is off');
    const begin = await owner.post('/merchant/security/totp', { _csrf: formTokenOf(off) });
    expect([begin.status, begin.headers.get('location')]).to.deep.equal([303, '/merchant/security']);
    const setup = await owner.get('/merchant/security?lang=en');
    const secret = /value="([A-Z2-7]+)" data-totp-secret/.exec(setup.text)![1];
    const uri = new URL(/value="([^"]+)" data-totp-uri/.exec(setup.text)![1].replace(/&amp;/g, '&'));
    expect(uri.protocol).to.equal('otpauth:');
    expect(uri.searchParams.get('secret')).to.equal(secret);
    expect(setup.text).to.contain('<svg');
    // Sealed at rest: the seed is not in the row, and opens with the platform's cipher.
    const row = await deps
      .knex('merchant_users')
      .where({ e164: `966${OWNER}` })
      .first();
    expect(row.totp_pending_secret_encrypted).to.match(/^v2\./).and.not.contain(secret);
    expect(deps.cipher.decrypt(row.totp_pending_secret_encrypted)).to.equal(secret);
    const key = base32Decode(secret)!;

    // A session opened elsewhere earlier, with the phone code alone.
    const earlier = await createSession(deps.knex, row.id, storeId, 'elsewhere');

    // Not yet in force: a wrong first code keeps it off.
    const wrong = await owner.post('/merchant/security/totp/confirm?lang=en', {
      _csrf: formTokenOf(setup),
      code: '000000',
    });
    expect(wrong.status).to.equal(422);
    expect(wrong.text).to.contain('That code is not right.');
    const s0 = stepNow();
    const confirmed = await owner.post('/merchant/security/totp/confirm?lang=en', {
      _csrf: formTokenOf(setup),
      code: hotp(key, s0),
    });
    expect(confirmed.status).to.equal(200);
    const recovery = [...confirmed.text.matchAll(/<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g)].map((m) => m[1]);
    expect(recovery).to.have.length(10);
    const stored = await deps
      .knex('merchant_user_recovery_codes')
      .where({ merchant_user_id: row.id })
      .pluck('code_hash');
    expect(stored).to.have.length(10);
    expect(stored.some((h: string) => recovery.some((c) => h.includes(c.replace('-', ''))))).to.equal(false);
    // Switching it on ends every other session of the person, and keeps this one.
    const elsewhereHome = await server.request('/merchant', {
      headers: { Cookie: `matjar_merchant=${earlier}` },
      redirect: 'manual',
    });
    expect(elsewhereHome.status).to.equal(302);
    const after = await owner.get('/merchant/security?lang=en');
    expect(after.text)
      .to.contain('Recovery codes left: 10')
      .and.not.contain(recovery[0])
      .and.not.contain(secret);

    // The phone code alone: no session, a challenge bound to this browser's cookie, a few minutes long.
    const sessionsBefore = await deps
      .knex('dashboard_sessions')
      .where({ merchant_user_id: row.id })
      .pluck('id');
    const laptop = new Browser();
    const half = await phoneStep(laptop, OWNER);
    expect([half.status, half.headers.get('location')]).to.deep.equal([303, '/merchant/second-factor']);
    expect(laptop.cookies.has('matjar_merchant')).to.equal(false);
    const challengeCookie = half.headers.getSetCookie().find((c) => c.startsWith('matjar_merchant_2fa='))!;
    expect(challengeCookie).to.contain('HttpOnly').and.contain('SameSite=Strict').and.contain('Max-Age=300');
    expect((await laptop.get('/merchant')).status).to.equal(302);
    expect((await laptop.get('/merchant/second-factor?lang=en')).text).to.contain(
      'autocomplete="one-time-code"',
    );
    const elsewhere = new Browser();
    const stolen = await elsewhere.post('/merchant/second-factor', { code: hotp(key, s0 + 1) });
    expect([stolen.status, stolen.headers.get('location')]).to.deep.equal([303, '/merchant/signin']);

    // The code used to switch the app on is not taken again; the next one is.
    const reused = await laptop.post('/merchant/second-factor?lang=en', { code: hotp(key, s0) });
    expect(reused.status).to.equal(422);
    expect(reused.text).to.contain('tries left');
    const signedIn = await laptop.post('/merchant/second-factor', { code: hotp(key, s0 + 1) });
    expect([signedIn.status, signedIn.headers.get('location')]).to.deep.equal([303, '/merchant']);
    expect(laptop.cookies.has('matjar_merchant')).to.equal(true);
    expect(laptop.cookies.has('matjar_merchant_2fa')).to.equal(false);
    expect((await laptop.get('/merchant')).status).to.equal(200);
    expect(
      await deps.knex('dashboard_sessions').where({ merchant_user_id: row.id }).pluck('id'),
    ).to.have.length(sessionsBefore.length + 1);

    // A recovery code signs in once, however many requests carry it at the same moment.
    const phoneLost = new Browser();
    expect((await phoneStep(phoneLost, OWNER)).headers.get('location')).to.equal('/merchant/second-factor');
    const twice = await Promise.all(
      [0, 1].map(() =>
        phoneLost.post('/merchant/second-factor', { recovery_code: recovery[3].toUpperCase() }),
      ),
    );
    expect(twice.filter((r) => r.status === 303 && r.headers.get('location') === '/merchant')).to.have.length(
      1,
    );
    expect(
      await deps
        .knex('merchant_user_recovery_codes')
        .where({ merchant_user_id: row.id })
        .whereNotNull('used_at')
        .pluck('id'),
    ).to.have.length(1);
  });

  it('switches the app off only with a current code not used before; a lapsed challenge signs no one in', async () => {
    const staff = new Browser();
    expect((await phoneStep(staff, STAFF)).headers.get('location')).to.equal('/merchant');
    const off = await staff.get('/merchant/security');
    await staff.post('/merchant/security/totp', { _csrf: formTokenOf(off) });
    const setup = await staff.get('/merchant/security');
    const key = base32Decode(/value="([A-Z2-7]+)" data-totp-secret/.exec(setup.text)![1])!;
    const s0 = stepNow();
    const token = formTokenOf(setup);
    expect(
      (await staff.post('/merchant/security/totp/confirm', { _csrf: token, code: hotp(key, s0) })).status,
    ).to.equal(200);

    // Creating another store with that phone also waits for the app: nothing is made on the phone code alone.
    const signup = new Browser();
    await signup.post('/merchant/signup', { store_name: 'Second Shop', country_code: '966', phone: STAFF });
    const pending = await signup.post('/merchant/code', { code: await codeFromOutbox(`966${STAFF}`) });
    expect([pending.status, pending.headers.get('location')]).to.deep.equal([303, '/merchant/second-factor']);
    expect(await deps.knex('stores').where({ name: 'Second Shop' }).pluck('id')).to.deep.equal([]);

    // A challenge past its few minutes is over.
    const late = new Browser();
    expect((await phoneStep(late, STAFF)).headers.get('location')).to.equal('/merchant/second-factor');
    await deps.knex('dashboard_sign_in_challenges').update({ expires_at: new Date(Date.now() - 1000) });
    const lapsed = await late.post('/merchant/second-factor', { code: hotp(key, s0 + 1) });
    expect([lapsed.status, lapsed.headers.get('location')]).to.deep.equal([303, '/merchant/signin']);
    expect(late.cookies.has('matjar_merchant')).to.equal(false);

    const noCsrf = await staff.post('/merchant/security/totp/disable', { code: hotp(key, s0 + 1) });
    expect(noCsrf.status).to.equal(403);
    const wrong = await staff.post('/merchant/security/totp/disable?lang=en', {
      _csrf: token,
      code: '000000',
    });
    expect(wrong.status).to.equal(422);
    const reused = await staff.post('/merchant/security/totp/disable', { _csrf: token, code: hotp(key, s0) });
    expect(reused.status).to.equal(422);
    const done = await staff.post('/merchant/security/totp/disable', {
      _csrf: token,
      code: hotp(key, s0 + 1),
    });
    expect([done.status, done.headers.get('location')]).to.deep.equal([303, '/merchant/security?off=1']);
    const row = await deps
      .knex('merchant_users')
      .where({ e164: `966${STAFF}` })
      .first();
    expect([row.totp_secret_encrypted, row.totp_enabled_at]).to.deep.equal([null, null]);
    expect(
      await deps.knex('merchant_user_recovery_codes').where({ merchant_user_id: row.id }).pluck('id'),
    ).to.deep.equal([]);
    // Off again: the phone code alone signs in.
    expect((await phoneStep(new Browser(), STAFF)).headers.get('location')).to.equal('/merchant');
  });
  it('ends a challenge after 5 wrong codes: that browser starts again from the phone', async () => {
    const phone = '500990604';
    await inviteStaff(deps.knex, storeId, null, {
      name: 'Fourth',
      country_code: '966',
      phone,
      role: 'owner',
    });
    const first = new Browser();
    await phoneStep(first, phone);
    const off = await first.get('/merchant/security');
    await first.post('/merchant/security/totp', { _csrf: formTokenOf(off) });
    const setup = await first.get('/merchant/security');
    const key = base32Decode(/value="([A-Z2-7]+)" data-totp-secret/.exec(setup.text)![1])!;
    const s0 = stepNow();
    await first.post('/merchant/security/totp/confirm', { _csrf: formTokenOf(setup), code: hotp(key, s0) });

    const guesser = new Browser();
    expect((await phoneStep(guesser, phone)).headers.get('location')).to.equal('/merchant/second-factor');
    const page = await guesser.get('/merchant/second-factor?lang=ar');
    expect(page.text).to.contain('التحقق بخطوتين').and.contain('dir="rtl"');
    const answers: TestResponse[] = [];
    for (let i = 0; i < 5; i += 1) {
      answers.push(await guesser.post('/merchant/second-factor?lang=en', { code: '000000' }));
    }
    expect(answers.map((r) => r.status)).to.deep.equal([422, 422, 422, 422, 422]);
    expect(answers[0].text).to.contain('4 tries left');
    expect(answers[4].text).to.contain('Too many wrong codes. Sign in again.');
    expect(guesser.cookies.has('matjar_merchant_2fa')).to.equal(false);
    const late = await guesser.post('/merchant/second-factor', { code: hotp(key, s0 + 1) });
    expect([late.status, late.headers.get('location')]).to.deep.equal([303, '/merchant/signin']);
    expect(guesser.cookies.has('matjar_merchant')).to.equal(false);
  });
});
