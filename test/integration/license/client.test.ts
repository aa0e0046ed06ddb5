import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  LicenseClient,
  LicenseClientError,
  type LicenseClientOptions,
} from '../../../integrations/license/node/license-client';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { sha256 } from '../../../shared/crypto';
import { noteLicensesChanged } from '../../../shared/services/licenses/cache';
import { signBody, signingKeys } from '../../../shared/services/licenses/signing';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { deadAddress, stub } from './client-support';
import { insertLicense, licensedProduct } from './support';

async function rejection(promise: Promise<unknown> | (() => unknown)): Promise<LicenseClientError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (err) {
    expect(err).to.be.instanceOf(LicenseClientError);
    return err as LicenseClientError;
  }
  throw new Error('expected a LicenseClientError');
}

describe('Node license client (integrations/license/node) against the running platform', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let publicKeys: Record<string, string>;
  let encryptionKey: string;
  let dir: string;

  // Answers on this branch may predate the request binding; the client's binding check is tested below
  // with an answer that carries one.
  const options = (licenseKey: string, extra: Partial<LicenseClientOptions> = {}): LicenseClientOptions => ({
    baseUrl: server.url,
    productId: product.id,
    licenseKey,
    hwid: 'WORKSTATION-7',
    publicKeys,
    encryptionKey,
    certificateFile: path.join(dir, `${licenseKey}.json`),
    allowUnbound: false,
    ...extra,
  });

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    product = await licensedProduct(store, deps.cipher, {
      name: 'CAD Suite',
      license_lock_type: 'hwid',
      license_max_activations: 2,
      license_encrypt: true,
    });
    const sealed = (await deps
      .knex('products')
      .where({ id: product.id })
      .first('license_secret_encrypted')) as {
      license_secret_encrypted: string;
    };
    encryptionKey = deps.cipher.decrypt(sealed.license_secret_encrypted);
    const res = await server.request('/verify/public-key');
    const keys = (res.body.data as { keys: { kid: string; public_key_pem: string }[] }).keys;
    publicKeys = Object.fromEntries(keys.map((k) => [k.kid, k.public_key_pem]));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'license-client-'));
  });
  after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('checks online (decrypting, signature, nonce), caches a certificate, and runs on it with the network gone', async () => {
    const [plan] = await deps
      .knex('product_plans')
      .insert({
        product_id: product.id,
        name: 'Pro',
        price_minor: 100,
        duration: 'yearly',
        features: JSON.stringify({ pro_export: true }),
      })
      .returning('id');
    const license = await insertLicense(product, {
      plan_id: (plan as { id: number }).id,
      expires_at: new Date(Date.now() + 90 * 86_400_000),
    });
    const online = await new LicenseClient(options(license.key)).check();
    expect(online).to.include({ online: true, status: 'active' });
    expect(online.entitlements).to.deep.equal({ pro_export: true });
    expect(online.certificate!.hwid).to.equal('WORKSTATION-7');
    const cached = JSON.parse(fs.readFileSync(path.join(dir, `${license.key}.json`), 'utf8')) as {
      certificate: string;
      expires_at: number;
    };
    expect(cached.expires_at).to.equal(online.certificate!.exp);

    const offline = await new LicenseClient(options(license.key, { baseUrl: await deadAddress() })).check();
    expect(offline).to.include({ online: false, status: 'active' });
    expect(offline.entitlements).to.deep.equal({ pro_export: true });

    // The same cache on another machine (another hwid) does not run.
    const moved = new LicenseClient(options(license.key, { baseUrl: await deadAddress(), hwid: 'OTHER-PC' }));
    expect((await rejection(() => moved.checkOffline())).code).to.equal('WRONG_REQUEST');
    // Past its expiry it does not run either.
    const later = new LicenseClient(
      options(license.key, { baseUrl: await deadAddress(), now: () => (online.certificate!.exp + 1) * 1000 }),
    );
    expect((await rejection(() => later.checkOffline())).code).to.equal('CERTIFICATE_EXPIRED');
  });

  it('drops the cached certificate on a refusal and voids older certificates by not_before', async () => {
    const license = await insertLicense(product);
    const client = new LicenseClient(options(license.key));
    const first = await client.check();
    expect(first.online).to.equal(true);

    // The merchant resets the activations: the old certificate is void once the client has been online.
    await deps.knex('license_activations').where({ license_id: license.id }).delete();
    await deps.knex('licenses').where({ id: license.id }).update({ activations_count: 0 });
    await noteLicensesChanged(deps, [license.key]);
    await client.verify();
    expect((await rejection(() => client.checkOffline())).code).to.equal('CERTIFICATE_REVOKED');

    await deps.knex('licenses').where({ id: license.id }).update({ status: 'revoked' });
    await noteLicensesChanged(deps, [license.key]);
    const refused = await rejection(client.check());
    expect(refused.code).to.equal('LICENSE_REVOKED');
    expect(refused.status).to.equal(403);
    expect((await rejection(() => client.checkOffline())).code).to.equal('NO_CERTIFICATE');
  });

  it('refuses a tampered answer, a replayed one, and an answer bound to another request', async () => {
    const license = await insertLicense(product);
    const other = await insertLicense(product);
    const forward = async (p: string, body: Record<string, unknown>) => {
      const res = await fetch(`${server.url}${p}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: res.status,
        headers: {
          'X-Signature': res.headers.get('x-signature') ?? '',
          'X-Signature-Key-Id': res.headers.get('x-signature-key-id') ?? '',
        },
        body: await res.text(),
      };
    };
    const tamper = await stub(async ({ path: p, body }) => {
      const out = await forward(p, body);
      return { ...out, body: out.body.replace(/"data":"/, '"data":"A') };
    });
    const replay = await stub(async ({ path: p, body }) =>
      forward(p, { ...body, nonce: 'an-older-request' }),
    );
    // A relay that answers with a genuine signed answer about another key (signed by the platform key).
    const keys = await signingKeys(deps);
    const relayed = await stub(async ({ body }) => {
      const doc = JSON.stringify({
        success: true,
        data: {
          status: 'active',
          lock_type: 'hwid',
          expires_at: null,
          activations: { current: 1, max: 2, remaining: 1 },
        },
        request: { product_id: product.id, license_key_sha256: sha256(other.key), hwid: 'WORKSTATION-7' },
        nonce: body.nonce,
        timestamp: Math.floor(Date.now() / 1000),
      });
      return {
        status: 200,
        headers: { 'X-Signature': signBody(keys, doc), 'X-Signature-Key-Id': keys.keyId },
        body: doc,
      };
    });
    try {
      const via = (url: string): LicenseClient =>
        new LicenseClient(options(license.key, { baseUrl: url, encryptionKey: null, allowUnbound: false }));
      expect(
        (await rejection(new LicenseClient(options(license.key, { baseUrl: tamper.url })).verify())).code,
      ).to.equal('BAD_SIGNATURE');
      expect(
        (await rejection(new LicenseClient(options(license.key, { baseUrl: replay.url })).verify())).code,
      ).to.equal('REPLAYED');
      expect((await rejection(via(relayed.url).verify())).code).to.equal('WRONG_REQUEST');
      // A plain answer where the product encrypts is refused.
      const plain = new LicenseClient(options(license.key, { baseUrl: relayed.url, allowUnbound: true }));
      expect((await rejection(plain.verify())).code).to.equal('NOT_ENCRYPTED');
      // A key not pinned.
      const unpinned = new LicenseClient(
        options(license.key, { publicKeys: { other: Object.values(publicKeys)[0]! }, allowUnbound: true }),
      );
      expect((await rejection(unpinned.verify())).code).to.equal('UNKNOWN_KEY');
    } finally {
      await Promise.all([tamper.close(), replay.close(), relayed.close()]);
    }
  });

  it('holds a floating seat with heartbeats and gives it back on stop', async () => {
    const floating = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    await deps
      .knex('license_policies')
      .insert({ product_id: floating.id, floating: true, heartbeat_seconds: 60 });
    const license = await insertLicense(floating);
    const opts = { productId: floating.id, encryptionKey: null, certificateFile: null };
    const a = new LicenseClient(options(license.key, { ...opts, hwid: 'SEAT-A' }));
    const b = new LicenseClient(options(license.key, { ...opts, hwid: 'SEAT-B' }));
    const first = (await a.startHeartbeats()) as { seat: { held: boolean; next_heartbeat_at: string } };
    expect(first.seat.held).to.equal(true);
    expect(Date.parse(first.seat.next_heartbeat_at)).to.be.above(Date.now());
    expect((await rejection(b.heartbeat())).code).to.equal('ACTIVATION_LIMIT_REACHED');
    await a.stopHeartbeats(true);
    expect((await b.heartbeat()).seat.next_heartbeat_at).to.be.a('string');
  });

  it('hands a floating certificate back with its seat, and drops one the platform calls void', async () => {
    const floating = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    await deps
      .knex('license_policies')
      .insert({ product_id: floating.id, floating: true, heartbeat_seconds: 600 });
    const license = await insertLicense(floating);
    const opts = { productId: floating.id, encryptionKey: null };
    const a = new LicenseClient(options(license.key, { ...opts, hwid: 'LEASE-A' }));
    const claims = await a.renewCertificate();
    expect(claims.seat, 'the certificate names its seat').to.be.an('object');
    const beat = await a.heartbeat();
    expect({ id: beat.seat.id, generation: beat.seat.generation }).to.deep.equal(claims.seat);

    // Released: the certificate goes back with the seat, and the seat stays taken until it ends.
    await a.heartbeat(true);
    expect((await rejection(() => a.checkOffline())).code).to.equal('NO_CERTIFICATE');
    const b = new LicenseClient(options(license.key, { ...opts, hwid: 'LEASE-B', certificateFile: null }));
    expect((await rejection(b.renewCertificate())).code).to.equal('ACTIVATION_LIMIT_REACHED');

    // A certificate whose seat moved on (the same machine certified again elsewhere) is void online: the
    // client drops it and keeps beating; the current one stays.
    const holder = new LicenseClient(
      options(license.key, {
        ...opts,
        hwid: 'LEASE-A',
        certificateFile: path.join(dir, `${license.key}-2.json`),
      }),
    );
    await holder.renewCertificate();
    await a.renewCertificate();
    expect((await holder.heartbeat()).seat.held).to.equal(true);
    expect((await rejection(() => holder.checkOffline())).code, 'the void one is dropped').to.equal(
      'NO_CERTIFICATE',
    );
    expect((await a.heartbeat()).seat.held).to.equal(true);
    expect(a.checkOffline().seat, 'the current one is kept').to.be.an('object');
  });

  it('accepts an ip-locked certificate that names no machine, even when this client sends a hwid', async () => {
    const ipLocked = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'ip',
      license_max_activations: 1,
    });
    const license = await insertLicense(ipLocked);
    const client = new LicenseClient(
      options(license.key, { productId: ipLocked.id, encryptionKey: null, hwid: 'ANY-MACHINE' }),
    );
    const claims = await client.renewCertificate();
    expect(claims.hwid).to.equal(null);
    expect(claims.ip).to.be.oneOf(['127.0.0.1', '::1']);
    expect(client.checkOffline().lock_type).to.equal('ip');
  });
});
