import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
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

const CLIENT = path.resolve(__dirname, '../../../integrations/license/python/matjar_license.py');

interface Run {
  code: number;
  out: Record<string, unknown>;
}

/** The Python client's command line (python3 with Debian's python3-cryptography), its JSON parsed. */
function python(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile('python3', ['-B', CLIENT, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number) : 0;
      if (typeof code !== 'number') return reject(new Error(`python3 did not run: ${String(err)} ${stderr}`));
      try {
        resolve({ code, out: JSON.parse(stdout) as Record<string, unknown> });
      } catch {
        reject(new Error(`python client printed no JSON (exit ${code}): ${stdout}${stderr}`));
      }
    });
  });
}

describe('Python license client (integrations/license/python) against the running platform', function () {
  this.timeout(60_000);
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let product: Product;
  let dir: string;
  let keysFile: string;
  let encryptionKey: string;

  const args = (action: string, licenseKey: string, extra: string[] = []): string[] => [
    action,
    '--base',
    server.url,
    '--product',
    String(product.id),
    '--key',
    licenseKey,
    '--hwid',
    'PY-STATION',
    '--public-keys',
    keysFile,
    '--encryption-key',
    encryptionKey,
    '--cache',
    path.join(dir, `${licenseKey}.json`),
    ...extra,
  ];

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    product = await licensedProduct(store, deps.cipher, {
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
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'license-py-'));
    const res = await server.request('/verify/public-key');
    const keys = (res.body.data as { keys: { kid: string; public_key_pem: string }[] }).keys;
    keysFile = path.join(dir, 'keys.json');
    fs.writeFileSync(
      keysFile,
      JSON.stringify(Object.fromEntries(keys.map((k) => [k.kid, k.public_key_pem]))),
    );
  });
  after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('checks online (decrypting), caches a certificate, runs offline on it, and drops it when revoked', async () => {
    const license = await insertLicense(product);
    const online = await python([...args('check', license.key)]);
    expect(online.code, JSON.stringify(online.out)).to.equal(0);
    expect(online.out).to.include({ online: true, status: 'active' });
    expect((online.out.certificate as { hwid: string }).hwid).to.equal('PY-STATION');

    const gone = args('check', license.key);
    gone[2] = await deadAddress();
    const offline = await python(gone);
    expect(offline.code, JSON.stringify(offline.out)).to.equal(0);
    expect(offline.out).to.include({ online: false, status: 'active' });

    const moved = args('offline', license.key);
    moved[8] = 'OTHER-PC';
    expect((await python(moved)).out.error).to.equal('WRONG_REQUEST');

    await deps.knex('licenses').where({ id: license.id }).update({ status: 'revoked' });
    await noteLicensesChanged(deps, [license.key]);
    const refused = await python([...args('check', license.key)]);
    expect(refused.code).to.equal(1);
    expect(refused.out).to.include({ error: 'LICENSE_REVOKED', status: 403 });
    expect((await python(args('offline', license.key))).out.error).to.equal('NO_CERTIFICATE');
  });

  it('refuses a signed answer bound to another key, and a replayed one', async () => {
    const license = await insertLicense(product);
    const other = await insertLicense(product);
    const keys = await signingKeys(deps);
    const relayed = await stub(async ({ body }) => {
      const doc = JSON.stringify({
        success: true,
        data: { status: 'active' },
        request: { product_id: product.id, license_key_sha256: sha256(other.key), hwid: 'PY-STATION' },
        nonce: body.nonce,
        timestamp: Math.floor(Date.now() / 1000),
      });
      return {
        status: 200,
        headers: { 'X-Signature': signBody(keys, doc), 'X-Signature-Key-Id': keys.keyId },
        body: doc,
      };
    });
    const replayed = await stub(async ({ path: p, body }) => {
      const res = await fetch(`${server.url}${p}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...body, nonce: 'an-older-request' }),
      });
      return {
        status: res.status,
        headers: {
          'X-Signature': res.headers.get('x-signature') ?? '',
          'X-Signature-Key-Id': res.headers.get('x-signature-key-id') ?? '',
        },
        body: await res.text(),
      };
    });
    try {
      const viaRelay = args('check', license.key).filter(
        (a) => a !== '--encryption-key' && a !== encryptionKey,
      );
      viaRelay[2] = relayed.url;
      expect((await python(viaRelay)).out.error).to.equal('WRONG_REQUEST');
      const viaReplay = [...args('check', license.key)];
      viaReplay[2] = replayed.url;
      expect((await python(viaReplay)).out.error).to.equal('REPLAYED');
    } finally {
      await Promise.all([relayed.close(), replayed.close()]);
    }
  });

  it('takes and releases a floating seat', async () => {
    const floating = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    await deps
      .knex('license_policies')
      .insert({ product_id: floating.id, floating: true, heartbeat_seconds: 60 });
    const license = await insertLicense(floating);
    const base = (action: string, hwid: string): string[] => {
      const a = args(action, license.key).filter((x) => x !== '--encryption-key' && x !== encryptionKey);
      a[4] = String(floating.id);
      a[8] = hwid;
      return a;
    };
    const held = await python(base('heartbeat', 'PY-A'));
    expect(held.code, JSON.stringify(held.out)).to.equal(0);
    expect((held.out.seat as { held: boolean }).held).to.equal(true);
    expect((await python(base('heartbeat', 'PY-B'))).out.error).to.equal('ACTIVATION_LIMIT_REACHED');
    expect((await python(base('release', 'PY-A'))).code).to.equal(0);
    expect((await python(base('heartbeat', 'PY-B'))).code).to.equal(0);
  });

  it('hands a floating certificate back with its seat, and accepts an ip-locked one naming no machine', async () => {
    const floating = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    await deps
      .knex('license_policies')
      .insert({ product_id: floating.id, floating: true, heartbeat_seconds: 600 });
    const license = await insertLicense(floating);
    const base = (action: string, hwid: string, productId = floating.id, key = license.key): string[] => {
      const a = args(action, key).filter((x) => x !== '--encryption-key' && x !== encryptionKey);
      a[4] = String(productId);
      a[8] = hwid;
      return a;
    };
    const cert = await python(base('certificate', 'PY-A'));
    expect(cert.code, JSON.stringify(cert.out)).to.equal(0);
    expect(cert.out.seat, 'the certificate names its seat').to.be.an('object');
    const beat = await python(base('heartbeat', 'PY-A'));
    expect(beat.code, JSON.stringify(beat.out)).to.equal(0);
    const seat = beat.out.seat as { id: number; generation: number };
    expect({ id: seat.id, generation: seat.generation }).to.deep.equal(cert.out.seat);
    expect((await python(base('release', 'PY-A'))).code).to.equal(0);
    expect((await python(base('offline', 'PY-A'))).out.error, 'handed back').to.equal('NO_CERTIFICATE');
    expect((await python(base('certificate', 'PY-B'))).out.error).to.equal('ACTIVATION_LIMIT_REACHED');

    const ipLocked = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'ip',
      license_max_activations: 1,
    });
    const ipLicense = await insertLicense(ipLocked);
    const ipCert = await python(base('certificate', 'PY-ANY', ipLocked.id, ipLicense.key));
    expect(ipCert.code, JSON.stringify(ipCert.out)).to.equal(0);
    expect(ipCert.out.hwid).to.equal(null);
    expect(ipCert.out.ip).to.be.oneOf(['127.0.0.1', '::1']);
    const offline = await python(base('offline', 'PY-ANY', ipLocked.id, ipLicense.key));
    expect(offline.code, JSON.stringify(offline.out)).to.equal(0);
  });
});
