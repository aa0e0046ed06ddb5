import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer, type TestResponse } from '../../helpers/http';
import { expectRefusal, insertLicense, licensedProduct, times, verify } from './support';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('Floating seats: POST /verify/heartbeat', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;

  const beat = (
    licenseKey: string,
    hwid: string,
    extra: Record<string, unknown> = {},
  ): Promise<TestResponse> =>
    server.request('/verify/heartbeat', {
      method: 'POST',
      json: { product_id: product.id, license_key: licenseKey, hwid, ...extra },
    });
  const liveSeats = async (licenseId: number): Promise<number> => {
    const [{ n }] = await deps
      .knex('license_seats')
      .where('license_id', licenseId)
      .where('expires_at', '>', new Date())
      .count<{ n: string }[]>('* as n');
    return Number(n);
  };

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    product = await licensedProduct(store, deps.cipher, {
      name: 'Render Farm',
      license_lock_type: 'hwid',
      license_max_activations: 5,
    });
    const token = await merchantToken(store);
    const saved = await server.request(`/shawarma/products/${product.id}/license-policy`, {
      method: 'PATCH',
      json: { floating: true, heartbeat_seconds: 3 },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(saved.status, saved.text).to.equal(200);
  });
  after(() => server.close());

  it('seats exactly 5 of 20 machines beating at once, and frees a silent machine’s seat after the interval', async function () {
    this.timeout(30_000);
    const license = await insertLicense(product);
    const machines = Array.from({ length: 20 }, (_, i) => `MACHINE-${i}`);
    const answers = await times(20, (i) => beat(license.key, machines[i]!));
    const seated = machines.filter((_, i) => answers[i]!.status === 200);
    expect(seated, 'exactly the seats').to.have.length(5);
    for (const res of answers.filter((r) => r.status !== 200))
      expectRefusal(res, 403, 'ACTIVATION_LIMIT_REACHED');
    expect(await liveSeats(license.id)).to.equal(5);
    const first = answers.find((r) => r.status === 200)!.body.data as {
      status: string;
      seat: {
        held: boolean;
        heartbeat_seconds: number;
        used: number;
        max: number;
        next_heartbeat_at: string;
      };
    };
    expect(first.status).to.equal('active');
    expect(first.seat).to.include({ held: true, heartbeat_seconds: 3, max: 5 });
    expect(Date.parse(first.seat.next_heartbeat_at)).to.be.above(Date.now() - 5_000);

    // A seated machine beating again keeps its seat and takes no second one.
    const again = await beat(license.key, seated[0]!);
    expect(again.status, again.text).to.equal(200);
    expect((again.body.data as { seat: { used: number } }).seat.used).to.equal(5);

    // seated[4] dies (stops beating); the other four keep beating; a newcomer waits for the dead seat.
    const survivors = seated.slice(0, 4);
    const dead = seated[4]!;
    expectRefusal(await beat(license.key, 'NEWCOMER'), 403, 'ACTIVATION_LIMIT_REACHED');
    let taken: TestResponse | null = null;
    for (let attempt = 0; attempt < 40 && !taken; attempt += 1) {
      for (const hwid of survivors) expect((await beat(license.key, hwid)).status).to.equal(200);
      const res = await beat(license.key, 'NEWCOMER');
      if (res.status === 200) taken = res;
      else {
        expectRefusal(res, 403, 'ACTIVATION_LIMIT_REACHED');
        await sleep(500);
      }
    }
    expect(taken, 'the dead machine’s seat went to the newcomer').to.not.equal(null);
    expect((taken!.body.data as { seat: { used: number } }).seat.used).to.equal(5);
    expectRefusal(await beat(license.key, dead), 403, 'ACTIVATION_LIMIT_REACHED');
  });

  it('gives a seat back on release, and /verify of a floating license takes no activation', async () => {
    const license = await insertLicense(product, { max_activations: 1 });
    expect((await beat(license.key, 'A')).status).to.equal(200);
    expectRefusal(await beat(license.key, 'B'), 403, 'ACTIVATION_LIMIT_REACHED');
    const released = await beat(license.key, 'A', { release: true });
    expect(released.status, released.text).to.equal(200);
    expect((released.body.data as { seat: { held: boolean; used: number } }).seat).to.include({
      held: false,
      used: 0,
    });
    expect((await beat(license.key, 'B')).status).to.equal(200);

    const plain = await verify(server, { product_id: product.id, license_key: license.key, hwid: 'C' });
    expect(plain.status, plain.text).to.equal(200);
    const row = await deps.knex('licenses').where({ id: license.id }).first('activations_count');
    expect((row as { activations_count: number }).activations_count).to.equal(0);

    expectRefusal(await beat(license.key, ''), 400, 'HWID_REQUIRED');
    const suspended = await insertLicense(product, { status: 'suspended' });
    expectRefusal(await beat(suspended.key, 'A'), 403, 'LICENSE_SUSPENDED');
    const nodeLocked = await licensedProduct(store, deps.cipher, { license_lock_type: 'hwid' });
    const fixed = await insertLicense(nodeLocked);
    const notFloating = await server.request('/verify/heartbeat', {
      method: 'POST',
      json: { product_id: nodeLocked.id, license_key: fixed.key, hwid: 'A' },
    });
    expect(notFloating.status).to.equal(400);
  });

  it('makes a floating license’s certificate a seat lease: it takes the seat and lasts no longer', async () => {
    const license = await insertLicense(product, { max_activations: 1 });
    const cert = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: product.id, license_key: license.key, hwid: 'OFFLINE-1' },
    });
    expect(cert.status, cert.text).to.equal(200);
    const payload = (cert.body.data as { certificate: string }).certificate.split('.')[1]!;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).to.be.at.most(3);
    expect(await liveSeats(license.id)).to.equal(1);
    const second = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: product.id, license_key: license.key, hwid: 'OFFLINE-2' },
    });
    expectRefusal(second, 403, 'ACTIVATION_LIMIT_REACHED');
  });
});
