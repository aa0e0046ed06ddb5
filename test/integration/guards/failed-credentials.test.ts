import { expect } from 'chai';
import type { Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createFivemServer } from '../../../shared/services/fivem';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

/**
 * Failed credentials are throttled per client IP before any database lookup (the operator contract,
 * docs/operations.md): more than 20 failed Merchant API or FiveM authentications (one bucket), or more than
 * 10 failed queue-dashboard logins, in a minute from one IP make every further attempt from it a 429 for
 * the rest of the minute, in the interface's envelope, right credentials included.
 */
describe('failed credentials throttled per IP', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let token: string;
  let secret: string;
  let queries = 0;
  const DASHBOARD = { user: 'ops', password: 'dashboard-password-0001' };

  before(async () => {
    deps = await isolatedDeps({
      TRUST_PROXY: '1',
      DASHBOARD_USER: DASHBOARD.user,
      DASHBOARD_PASSWORD: DASHBOARD.password,
    });
    server = await startServer(deps);
    store = await createStore({ plan: 'paid' });
    token = await merchantToken(store);
    secret = (await createFivemServer(deps.knex, store.id, 'main')).secret;
    deps.knex.on('query', () => (queries += 1));
  });
  after(() => server.close());

  const merchant = (ip: string, bearer: string): Promise<TestResponse> =>
    server.request('/shawarma/orders', {
      headers: { Authorization: `Bearer ${bearer}`, 'X-Forwarded-For': ip },
    });
  const fivem = (ip: string, presented: string): Promise<TestResponse> =>
    server.request('/api/fivem/queue', { headers: { 'X-FiveM-Secret': presented, 'X-Forwarded-For': ip } });
  const dashboard = (ip: string, password: string): Promise<TestResponse> =>
    server.request('/admin/queues', {
      headers: {
        Authorization: `Basic ${Buffer.from(`${DASHBOARD.user}:${password}`).toString('base64')}`,
        'X-Forwarded-For': ip,
      },
    });

  /** Sends `n` attempts one after another and answers their statuses. */
  async function statuses(n: number, send: (i: number) => Promise<TestResponse>): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i += 1) out.push((await send(i)).status);
    return out;
  }

  /** Runs `send` and answers how many database queries it made. */
  async function queriesOf<T>(send: () => Promise<T>): Promise<{ result: T; queries: number }> {
    const before = queries;
    const result = await send();
    return { result, queries: queries - before };
  }

  it('Merchant API: 21 failures pass as 401, then every attempt is a message-only 429, the right token too, without a database read', async () => {
    const ip = randomIp();
    expect(await statuses(21, (i) => merchant(ip, `mt_wrong_${i}`))).to.deep.equal(Array(21).fill(401));
    const { result: refused, queries: read } = await queriesOf(() => merchant(ip, token));
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body).to.deep.equal({ message: 'Too many requests. Please try again later.' });
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(read, 'no database lookup for a refused attempt').to.equal(0);
    // Another address is not affected.
    expect((await merchant(randomIp(), token)).status).to.equal(200);
  });

  it('FiveM: the same bucket, a 429 in the FiveM envelope with next_check', async () => {
    const ip = randomIp();
    expect(await statuses(21, (i) => fivem(ip, `wrong-secret-${i}`))).to.deep.equal(Array(21).fill(401));
    const { result: refused, queries: read } = await queriesOf(() => fivem(ip, secret));
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body).to.include({ success: false });
    expect(refused.body.next_check).to.be.within(1, 60);
    expect(read).to.equal(0);
    expect((await fivem(randomIp(), secret)).status).to.equal(200);
  });

  it('counts Merchant API and FiveM failures of one IP together, and successes not at all', async () => {
    const ip = randomIp();
    // Successes between failures count for nothing.
    for (let i = 0; i < 11; i += 1) {
      expect((await merchant(ip, `mt_wrong_${i}`)).status).to.equal(401);
      expect((await merchant(ip, token)).status).to.equal(200);
    }
    expect(await statuses(10, (i) => fivem(ip, `wrong-${i}`))).to.deep.equal(Array(10).fill(401));
    expect((await merchant(ip, token)).status).to.equal(429);
    expect((await fivem(ip, secret)).status).to.equal(429);
  });

  it('shuts the door after a concurrent burst of wrong tokens', async () => {
    const ip = randomIp();
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => merchant(ip, `mt_burst_${i}`)));
    expect(burst.every((r) => r.status === 401 || r.status === 429)).to.equal(true);
    expect(burst.filter((r) => r.status === 401).length).to.be.at.least(21);
    expect((await merchant(ip, token)).status).to.equal(429);
  });

  it('queue dashboard: 11 failed logins pass as 401, then 429 in the platform envelope, the right password too', async () => {
    const ip = randomIp();
    expect(await statuses(11, (i) => dashboard(ip, `wrong-${i}`))).to.deep.equal(Array(11).fill(401));
    const refused = await dashboard(ip, DASHBOARD.password);
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body).to.have.property('error_code', 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect((await dashboard(randomIp(), DASHBOARD.password)).status).to.equal(200);
  });
});
