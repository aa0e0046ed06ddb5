import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { loadFixture } from '../../../shared/services/seed';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { deliverQueuedOtps, randomIp } from '../../helpers/otp';

/**
 * "Keep me signed in" (docs/dashboard.md, "Keep me signed in"): ticked, the session cookie lasts 30 days
 * (it survives closing the browser); not ticked, it is a browser-session cookie. Each session is listed
 * on the security page and ended from there (its cookie then signs no one in); another person's session
 * cannot be ended.
 */
describe('keep me signed in', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;
  const OWNER = '594700301';
  const OTHER = '594700302';

  before(async () => {
    deps = await isolatedDeps({ TRUST_PROXY: '1' });
    server = await startServer(deps);
    await loadFixture(deps, {
      stores: [
        {
          ref: 'keep',
          name: 'Keep Store',
          currency: 'SAR',
          owner: { name: 'Owner', country_code: '966', phone: OWNER },
        },
        {
          ref: 'other',
          name: 'Other Store',
          currency: 'SAR',
          owner: { name: 'Other', country_code: '966', phone: OTHER },
        },
      ],
    });
  });
  after(async () => {
    await server?.close();
  });

  class Browser {
    readonly cookies = new Map<string, string>();
    readonly lines = new Map<string, string>();
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
        const eq = pair!.indexOf('=');
        const name = pair!.slice(0, eq);
        if (/Max-Age=0(;|$)/.test(line)) this.cookies.delete(name);
        else {
          this.cookies.set(name, pair!.slice(eq + 1));
          this.lines.set(name, line);
        }
      }
      return res;
    }
  }

  async function codeFromOutbox(e164: string): Promise<string> {
    await deliverQueuedOtps(deps);
    const res = await server.request(`/__dev/outbox?to=${e164}`);
    const messages = res.body.messages as { body: string }[];
    // The newest first: the only run of 4 to 8 digits is the code (the operator contract).
    return messages[0]!.body.match(/(?<!\d)\d{4,8}(?!\d)/g)![0]!;
  }

  async function signIn(phone: string, remember: boolean): Promise<Browser> {
    const b = new Browser();
    const start = await b.post('/merchant/signin', {
      country_code: '966',
      phone,
      ...(remember ? { remember: '1' } : {}),
    });
    expect(start.status, start.text).to.equal(303);
    const done = await b.post('/merchant/code', { code: await codeFromOutbox(`966${phone}`) });
    expect(done.status, done.text).to.equal(303);
    expect(b.cookies.has('matjar_merchant')).to.equal(true);
    return b;
  }

  it('the sign-in form offers the box, labelled, in Arabic', async () => {
    const page = await new Browser().get('/merchant/signin?lang=ar');
    expect(page.text).to.contain('name="remember" value="1"').and.to.contain('أبقني مسجّلاً');
  });

  it('ticked: a 30-day cookie; not ticked: a cookie that ends with the browser', async () => {
    const kept = await signIn(OWNER, true);
    expect(kept.lines.get('matjar_merchant')).to.contain(`Max-Age=${30 * 86_400}`);
    expect(kept.cookies.has('matjar_merchant_remember')).to.equal(false);
    const plain = await signIn(OWNER, false);
    expect(plain.lines.get('matjar_merchant')).to.not.contain('Max-Age');
  });

  it('the security page lists the sessions and ends one; its cookie then signs no one in; another’s is 404', async () => {
    const phoneA = await signIn(OWNER, true);
    const laptop = await signIn(OWNER, true);
    const page = await laptop.get('/merchant/security?lang=en');
    expect(page.status, page.text).to.equal(200);
    const ids = [...page.text.matchAll(/data-session="(\d+)"/g)].map((m) => Number(m[1]));
    expect(ids.length).to.be.at.least(2);
    expect(page.text).to.contain('(this device)');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    // phoneA's session: the newest but one (laptop's is the current one).
    const phoneSession = await deps
      .knex('dashboard_sessions')
      .whereNull('revoked_at')
      .orderBy('id', 'desc')
      .offset(1)
      .first('id');
    expect((await phoneA.get('/merchant')).status).to.equal(200);
    const ended = await laptop.post(`/merchant/security/sessions/${phoneSession.id}/revoke`, { _csrf: csrf });
    expect(ended.status, ended.text).to.equal(303);
    const after = await phoneA.get('/merchant');
    expect(after.status).to.equal(302);
    expect(after.headers.get('location')).to.match(/^\/merchant\/signin/);
    expect((await laptop.get('/merchant')).status).to.equal(200);

    // Another person's session: not found, and it goes on.
    const other = await signIn(OTHER, true);
    const otherSession = await deps
      .knex('dashboard_sessions')
      .whereNull('revoked_at')
      .orderBy('id', 'desc')
      .first('id');
    const refused = await laptop.post(`/merchant/security/sessions/${otherSession.id}/revoke`, {
      _csrf: csrf,
    });
    expect(refused.status).to.equal(404);
    expect((await other.get('/merchant')).status).to.equal(200);
  });
});
