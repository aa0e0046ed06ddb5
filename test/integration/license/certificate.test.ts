import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { noteLicensesChanged } from '../../../shared/services/licenses/cache';
import { publishedKeys, rotateSigningKey } from '../../../shared/services/licenses/key-rotation';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer, type TestResponse } from '../../helpers/http';
import { expectRefusal, insertLicense, licensedProduct, verify } from './support';

const DAY = 86_400_000;
const DAY_S = 86_400;

interface Jws {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  valid: boolean;
}

/** Checks a JWS as software does offline: node:crypto and the published key, nothing else. */
function checkJws(token: string, keysByKid: Map<string, crypto.KeyObject>): Jws {
  const parts = token.split('.');
  expect(parts, 'three base64url parts').to.have.length(3);
  for (const part of parts) expect(part).to.match(/^[A-Za-z0-9_-]+$/);
  const [h, p, s] = parts as [string, string, string];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
  const key = keysByKid.get(String(header.kid));
  expect(key, `a published key for kid ${String(header.kid)}`).to.not.equal(undefined);
  const valid = crypto.verify(null, Buffer.from(`${h}.${p}`, 'ascii'), key!, Buffer.from(s, 'base64url'));
  return { header, claims, valid };
}

const sha256 = (value: string): string => crypto.createHash('sha256').update(value, 'utf8').digest('hex');

describe('License Verification API: POST /verify/certificate (offline certificates)', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let locked: Product;
  let keysByKid: Map<string, crypto.KeyObject>;

  const certificate = (body: Record<string, unknown>): Promise<TestResponse> =>
    server.request('/verify/certificate', { method: 'POST', json: body });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    locked = await licensedProduct(store, deps.cipher, {
      name: 'Desk App',
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    // The published keys, read once: everything after this checks certificates with no server involved.
    const res = await server.request('/verify/public-key');
    expect(res.status).to.equal(200);
    const data = res.body.data as {
      key_id: string;
      public_key_pem: string;
      keys: { kid: string; public_key_pem: string; jwk: { x: string; kid: string } }[];
    };
    expect(data.keys[0]!.kid, 'the current key is listed first').to.equal(data.key_id);
    expect(data.keys[0]!.jwk.kid).to.equal(data.key_id);
    keysByKid = new Map(data.keys.map((k) => [k.kid, crypto.createPublicKey(k.public_key_pem)]));
    // The JWK names the same key.
    const fromJwk = crypto.createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: data.keys[0]!.jwk.x },
      format: 'jwk',
    });
    expect(fromJwk.export({ format: 'pem', type: 'spki' })).to.equal(data.public_key_pem);
  });
  after(() => server.close());

  it('answers an EdDSA JWS bound to the product, the key as sent and the hwid, that checks offline', async () => {
    const [plan] = await deps
      .knex('product_plans')
      .insert({
        product_id: locked.id,
        name: 'Yearly Pro',
        price_minor: 5000,
        duration: 'yearly',
        features: JSON.stringify({ pro_export: true, max_projects: 10 }),
      })
      .returning('id');
    const expires = new Date(Date.now() + 200 * DAY);
    const license = await insertLicense(locked, {
      plan_id: (plan as { id: number }).id,
      expires_at: expires,
    });
    const sentKey = ` ${license.key.toLowerCase()}`;
    const before = Math.floor(Date.now() / 1000);
    const res = await certificate({
      product_id: locked.id,
      license_key: sentKey,
      hwid: 'PC-1',
      nonce: 'c-1',
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.headers.get('x-signature'), 'the answer itself is signed').to.be.a('string');
    expect(res.body.nonce).to.equal('c-1');
    const data = res.body.data as { certificate: string; key_id: string; expires_at: string };

    const jws = checkJws(data.certificate, keysByKid);
    expect(jws.valid, 'signature checks with the published key').to.equal(true);
    expect(jws.header).to.include({ alg: 'EdDSA', kid: data.key_id });
    expect(jws.claims).to.include({
      product_id: locked.id,
      license_key_sha256: sha256(sentKey),
      hwid: 'PC-1',
      status: 'active',
      lock_type: 'hwid',
      not_before: 0,
    });
    expect(jws.claims.entitlements).to.deep.equal({ pro_export: true, max_projects: 10 });
    const iat = jws.claims.iat as number;
    const exp = jws.claims.exp as number;
    expect(iat).to.be.at.least(before);
    expect(exp - iat, 'a 30-day certificate for a license good for 200 days').to.equal(30 * DAY_S);
    expect(data.expires_at).to.equal(new Date(exp * 1000).toISOString());

    // Changing one byte of the claims breaks the signature.
    const [h, p, s] = data.certificate.split('.') as [string, string, string];
    const forged = { ...jws.claims, hwid: 'PC-2' };
    const tampered = `${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`;
    expect(checkJws(tampered, keysByKid).valid).to.equal(false);
    expect(p).to.not.equal(tampered.split('.')[1]);

    // It activated PC-1 as /verify does: the one slot is taken, and /verify lists the same entitlements.
    const again = await verify(server, { product_id: locked.id, license_key: license.key, hwid: 'PC-1' });
    expect(again.status, again.text).to.equal(200);
    const result = again.body.data as { activations: unknown; entitlements: unknown; not_before: number };
    expect(result.activations).to.deep.equal({ current: 1, max: 1, remaining: 0 });
    expect(result.entitlements).to.deep.equal({ pro_export: true, max_projects: 10 });
    expect(result.not_before).to.equal(0);
  });

  it('never outlives the license: exp is the license expiry when that comes first', async () => {
    const expires = new Date(Date.now() + 2 * DAY + 1234);
    const license = await insertLicense(locked, { expires_at: expires });
    const res = await certificate({ product_id: locked.id, license_key: license.key, hwid: 'PC-9' });
    expect(res.status, res.text).to.equal(200);
    const jws = checkJws((res.body.data as { certificate: string }).certificate, keysByKid);
    expect(jws.valid).to.equal(true);
    expect(jws.claims.exp).to.equal(Math.floor(expires.getTime() / 1000));
    expect(jws.claims.license_expires_at).to.equal(Math.floor(expires.getTime() / 1000));
    expect(jws.claims.hwid).to.equal('PC-9');
  });

  it('is refused exactly as /verify refuses, and activates nothing then', async () => {
    const license = await insertLicense(locked);
    expect(
      (await certificate({ product_id: locked.id, license_key: license.key, hwid: 'A' })).status,
    ).to.equal(200);
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ product_id: locked.id, license_key: license.key, hwid: 'B' }, 403, 'ACTIVATION_LIMIT_REACHED'],
      [{ product_id: locked.id, license_key: license.key }, 400, 'HWID_REQUIRED'],
      [
        { product_id: locked.id, license_key: 'TEST-AAAA-BBBB-CCCC-DDDD', hwid: 'A' },
        404,
        'LICENSE_NOT_FOUND',
      ],
    ];
    for (const [body, status, code] of cases) {
      const cert = await certificate(body);
      expectRefusal(cert, status, code);
      expect(cert.body.data, 'no certificate').to.equal(undefined);
      expect(cert.headers.get('x-signature'), 'refusals are signed').to.be.a('string');
      expectRefusal(await verify(server, body), status, code);
    }
    for (const status of ['revoked', 'suspended', 'expired', 'generated'] as const) {
      const other = await insertLicense(locked, { status });
      const body = { product_id: locked.id, license_key: other.key, hwid: 'A' };
      const cert = await certificate(body);
      const plain = await verify(server, body);
      expect(cert.status).to.equal(plain.status);
      expect(cert.body.error_code).to.equal(plain.body.error_code);
    }
    const validation = await certificate({ product_id: locked.id });
    expectRefusal(validation, 422, 'VALIDATION_FAILED');
  });

  it('moves not_before past every certificate when the license is suspended or its activations reset', async () => {
    const license = await insertLicense(locked);
    const first = await certificate({ product_id: locked.id, license_key: license.key, hwid: 'OLD-PC' });
    const old = checkJws((first.body.data as { certificate: string }).certificate, keysByKid);
    expect(old.claims.not_before).to.equal(0);

    // The customer's self-service reset frees the machine: certificates issued before it are void.
    const reset = await server.request('/verify/reset', {
      method: 'POST',
      json: { product_id: locked.id, license_key: license.key },
    });
    expect(reset.status, reset.text).to.equal(200);
    const after = await verify(server, { product_id: locked.id, license_key: license.key, hwid: 'NEW-PC' });
    expect(after.status, after.text).to.equal(200);
    const notBefore = (after.body.data as { not_before: number }).not_before;
    expect(notBefore, 'a client coming online drops the older certificate').to.be.above(
      old.claims.iat as number,
    );

    // A certificate issued afterwards is not void: its iat is at least not_before.
    const next = await certificate({ product_id: locked.id, license_key: license.key, hwid: 'NEW-PC' });
    const fresh = checkJws((next.body.data as { certificate: string }).certificate, keysByKid);
    expect(fresh.claims.not_before).to.equal(notBefore);
    expect(fresh.claims.iat as number).to.be.at.least(notBefore);

    // Suspending moves it again (as does a revoke: a refund or cancellation).
    await deps.knex('licenses').where({ id: license.id }).update({ status: 'suspended' });
    await deps.knex('licenses').where({ id: license.id }).update({ status: 'active' });
    await noteLicensesChanged(deps, [license.key]);
    const later = await verify(server, { product_id: locked.id, license_key: license.key, hwid: 'NEW-PC' });
    expect((later.body.data as { not_before: number }).not_before).to.be.above(fresh.claims.iat as number);
  });

  // Last: it changes the deployment's key.
  it('rotates the key: the new one current, the old one published while its certificates may be valid', async () => {
    const license = await insertLicense(locked);
    const before = await certificate({ product_id: locked.id, license_key: license.key, hwid: 'ROT-1' });
    const oldKid = (before.body.data as { key_id: string }).key_id;
    const rotated = await rotateSigningKey(deps);
    expect(rotated.retired).to.equal(oldKid);
    expect(rotated.current).to.not.equal(oldKid);

    const res = await server.request('/verify/public-key');
    const data = res.body.data as {
      key_id: string;
      keys: { kid: string; public_key_pem: string; retired_at: string | null }[];
    };
    expect(data.key_id).to.equal(rotated.current);
    expect(data.keys.map((k) => [k.kid, k.retired_at === null])).to.deep.equal([
      [rotated.current, true],
      [oldKid, false],
    ]);
    // A certificate signed before the rotation still checks with the published keys.
    const published = new Map(data.keys.map((k) => [k.kid, crypto.createPublicKey(k.public_key_pem)]));
    expect(checkJws((before.body.data as { certificate: string }).certificate, published).valid).to.equal(
      true,
    );
    // Once its certificates have all expired, the old key is no longer listed.
    const later = await publishedKeys(deps, new Date(Date.now() + 32 * DAY));
    expect(later.map((k) => k.kid)).to.deep.equal([rotated.current]);
  });
});
