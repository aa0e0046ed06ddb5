import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, type TestServer } from '../../helpers/http';
import { deliverQueuedOtps, randomIp } from '../../helpers/otp';

/** The dashboard's sign-up and sign-in code is written in the page's language (docs/dashboard.md). */
describe('Dashboard codes in the merchant’s language', function () {
  this.timeout(20_000);
  let deps: Deps;
  let server: TestServer;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
  });
  after(() => server.close());

  const post = (path: string, fields: Record<string, string>) =>
    server.request(path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': randomIp() },
      body: new URLSearchParams(fields).toString(),
    });

  async function lastMessage(e164: string): Promise<string> {
    await deliverQueuedOtps(deps);
    const res = await server.request(`/__dev/outbox?to=${e164}`);
    return (res.body.messages as { body: string }[])[0]!.body;
  }

  for (const [lang, phone, words] of [
    ['ar', '594000601', 'رمز التحقق الخاص بك هو'],
    ['en', '594000602', 'Your verification code is'],
  ] as const) {
    it(`sends the sign-up code in ${lang === 'ar' ? 'Arabic' : 'English'} from the ${lang} page, one run of 6 digits`, async () => {
      const res = await post(`/merchant/signup?lang=${lang}`, {
        store_name: `Lang ${lang}`,
        owner_name: '',
        country_code: '966',
        phone,
      });
      expect(res.status, res.text).to.equal(303);
      const body = await lastMessage(`966${phone}`);
      expect(body).to.contain(words);
      expect(body.match(/(?<!\d)\d{4,8}(?!\d)/g)).to.have.length(1);
    });
  }
});
