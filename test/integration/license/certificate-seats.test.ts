import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore, merchantToken } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer, type TestResponse } from '../../helpers/http';
import { expectRefusal, insertLicense, licensedProduct, times } from './support';

interface Claims {
  hwid: string | null;
  ip: string | null;
  seat: { id: number; generation: number } | null;
  iat: number;
  exp: number;
  lock_type: string;
}

interface Seat {
  held: boolean;
  expires_at: string | null;
  used: number;
  id: number | null;
  generation: number | null;
}

/** The signed claims of a certificate answer (what software reads offline). */
const claimsOf = (res: TestResponse): Claims => {
  expect(res.status, res.text).to.equal(200);
  const token = (res.body.data as { certificate: string }).certificate;
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Claims;
};
const tokenOf = (res: TestResponse): string => (res.body.data as { certificate: string }).certificate;
const seatOf = (res: TestResponse): Seat => {
  expect(res.status, res.text).to.equal(200);
  return (res.body.data as { seat: Seat }).seat;
};

describe('License API: offline certificates hold no more machines than the license activated', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let floating: Product;
  let ipLocked: Product;

  const post = (path: string, product: Product, key: string, extra: Record<string, unknown>) =>
    server.request(path, { method: 'POST', json: { product_id: product.id, license_key: key, ...extra } });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    floating = await licensedProduct(store, deps.cipher, {
      name: 'Studio Seats',
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    const saved = await server.request(`/shawarma/products/${floating.id}/license-policy`, {
      method: 'PATCH',
      json: { floating: true, heartbeat_seconds: 3600 },
      headers: { Authorization: `Bearer ${await merchantToken(store)}` },
    });
    expect(saved.status, saved.text).to.equal(200);
    ipLocked = await licensedProduct(store, deps.cipher, {
      name: 'Office Server',
      license_lock_type: 'ip',
      license_max_activations: 1,
    });
  });
  after(() => server.close());

  it('keeps a released seat taken until its certificate ends: certificate, release, certificate elsewhere is refused', async () => {
    const license = await insertLicense(floating);
    const first = await post('/verify/certificate', floating, license.key, { hwid: 'LAPTOP-A' });
    const claims = claimsOf(first);
    expect(claims.seat, 'the certificate names its seat').to.be.an('object');
    expect(claims.hwid).to.equal('LAPTOP-A');

    // The release races six other machines asking for a certificate or a seat: none gets one while A's
    // certificate is valid offline, whichever order Postgres takes them in.
    const [release, ...others] = await Promise.all([
      post('/verify/heartbeat', floating, license.key, { hwid: 'LAPTOP-A', release: true }),
      ...Array.from({ length: 6 }, (_, i) =>
        post(i % 2 === 0 ? '/verify/certificate' : '/verify/heartbeat', floating, license.key, {
          hwid: `LAPTOP-${i + 1}`,
        }),
      ),
    ]);
    for (const res of others) expectRefusal(res!, 403, 'ACTIVATION_LIMIT_REACHED');
    const released = seatOf(release!);
    expect(released.held).to.equal(false);
    expect(released.used, 'the leased seat still counts').to.equal(1);
    expect(Date.parse(released.expires_at!) / 1000, 'taken until the certificate ends').to.be.at.least(
      claims.exp,
    );
    // And after the release, still none.
    expectRefusal(
      await post('/verify/certificate', floating, license.key, { hwid: 'LAPTOP-9' }),
      403,
      'ACTIVATION_LIMIT_REACHED',
    );
  });

  it('refuses, online, a certificate of a released or re-certified seat (CERTIFICATE_VOID), and accepts the current one', async () => {
    const license = await insertLicense(floating);
    const old = await post('/verify/certificate', floating, license.key, { hwid: 'DESK-1' });
    const oldClaims = claimsOf(old);
    const held = seatOf(
      await post('/verify/heartbeat', floating, license.key, { hwid: 'DESK-1', certificate: tokenOf(old) }),
    );
    expect(held.held).to.equal(true);
    expect({ id: held.id, generation: held.generation }).to.deep.equal(oldClaims.seat);

    await post('/verify/heartbeat', floating, license.key, { hwid: 'DESK-1', release: true });
    expectRefusal(
      await post('/verify/heartbeat', floating, license.key, { hwid: 'DESK-1', certificate: tokenOf(old) }),
      403,
      'CERTIFICATE_VOID',
    );

    // The same machine takes its seat back and gets a new certificate: only that one passes online.
    const fresh = await post('/verify/certificate', floating, license.key, { hwid: 'DESK-1' });
    const freshClaims = claimsOf(fresh);
    expect(freshClaims.seat!.id).to.equal(oldClaims.seat!.id);
    expect(freshClaims.seat!.generation).to.be.above(oldClaims.seat!.generation);
    expect(
      seatOf(
        await post('/verify/heartbeat', floating, license.key, {
          hwid: 'DESK-1',
          certificate: tokenOf(fresh),
        }),
      ).held,
    ).to.equal(true);
    expectRefusal(
      await post('/verify/heartbeat', floating, license.key, { hwid: 'DESK-1', certificate: tokenOf(old) }),
      403,
      'CERTIFICATE_VOID',
    );

    // A certificate for another machine, or one the platform did not sign, is void as well.
    expectRefusal(
      await post('/verify/heartbeat', floating, license.key, { hwid: 'DESK-2', certificate: tokenOf(fresh) }),
      403,
      'CERTIFICATE_VOID',
    );
    const [h, p] = tokenOf(fresh).split('.') as [string, string];
    const foreign = crypto.sign(
      null,
      Buffer.from(`${h}.${p}`),
      crypto.generateKeyPairSync('ed25519').privateKey,
    );
    expectRefusal(
      await post('/verify/heartbeat', floating, license.key, {
        hwid: 'DESK-1',
        certificate: `${h}.${p}.${foreign.toString('base64url')}`,
      }),
      403,
      'CERTIFICATE_VOID',
    );
    const nullHeader = `${Buffer.from('null').toString('base64url')}.${p}.${foreign.toString('base64url')}`;
    expectRefusal(
      await post('/verify/heartbeat', floating, license.key, { hwid: 'DESK-1', certificate: nullHeader }),
      403,
      'CERTIFICATE_VOID',
    );
    const malformed = await post('/verify/heartbeat', floating, license.key, {
      hwid: 'DESK-1',
      certificate: 'x y',
    });
    expect(malformed.status, malformed.text).to.equal(422);
  });

  it('certifies an ip-locked license’s activated address only, never the hwid a caller names', async () => {
    const license = await insertLicense(ipLocked);
    const answers = await times(3, (i) =>
      post('/verify/certificate', ipLocked, license.key, { hwid: `ANY-${i}` }),
    );
    for (const res of answers) {
      const claims = claimsOf(res);
      expect(claims.lock_type).to.equal('ip');
      expect(claims.hwid, 'no machine was activated').to.equal(null);
      expect(claims.ip).to.be.oneOf(['127.0.0.1', '::1']);
      expect(claims.seat).to.equal(null);
      // The answer's binding still names the request exactly as sent.
      expect((res.body.request as { hwid: string }).hwid).to.match(/^ANY-\d$/);
    }
    const row = await deps.knex('licenses').where({ id: license.id }).first('activations_count');
    expect((row as { activations_count: number }).activations_count).to.equal(1);
  });
});
