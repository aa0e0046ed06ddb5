import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Product } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';
import { insertLicense, licensedProduct } from './support';

const SOURCE = path.resolve(__dirname, '../../../integrations/license/c/matjar_license.c');

function run(file: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (err as { code?: unknown }).code : 0;
      if (typeof code !== 'number') return reject(new Error(`${file} did not run: ${String(err)} ${stderr}`));
      resolve({ code, out: `${stdout}${stderr}`.trim() });
    });
  });
}

describe('C certificate checker (integrations/license/c), built with the system compiler and libcrypto', function () {
  this.timeout(120_000);
  let deps: Deps;
  let server: TestServer;
  let product: Product;
  let dir: string;
  let bin: string;
  let kid: string;
  let pemFile: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'license-c-'));
    bin = path.join(dir, 'matjar-cert');
    const built = await run('cc', [
      '-std=c11',
      '-O2',
      '-Wall',
      '-Wextra',
      '-Werror',
      '-DMATJAR_CLI',
      '-o',
      bin,
      SOURCE,
      '-lcrypto',
    ]);
    expect(built.code, `cc: ${built.out}`).to.equal(0);
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    product = await licensedProduct(await createStore(), deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    const res = await server.request('/verify/public-key');
    const key = (res.body.data as { keys: { kid: string; public_key_pem: string }[] }).keys[0]!;
    kid = key.kid;
    pemFile = path.join(dir, 'key.pem');
    fs.writeFileSync(pemFile, key.public_key_pem);
  });
  after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('accepts its certificate offline and refuses another machine, a forgery, expiry and revocation', async () => {
    const license = await insertLicense(product);
    const res = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: product.id, license_key: license.key, hwid: 'C-DESKTOP "1"' },
    });
    expect(res.status, res.text).to.equal(200);
    const data = res.body.data as { certificate: string; claims: { iat: number; exp: number } };
    const certFile = path.join(dir, 'cert.jws');
    fs.writeFileSync(certFile, data.certificate);
    const check = (
      hwid: string,
      extra: string[] = [],
      file = certFile,
    ): Promise<{ code: number; out: string }> =>
      run(bin, [file, kid, pemFile, String(product.id), license.key, hwid, ...extra]);

    expect(await check('C-DESKTOP "1"')).to.deep.equal({ code: 0, out: `OK active ${data.claims.exp}` });
    expect((await check('OTHER-PC')).out).to.equal('WRONG_REQUEST');
    expect((await check('-')).out).to.equal('WRONG_REQUEST');
    expect((await check('C-DESKTOP "1"', ['0', String(data.claims.exp)])).out).to.equal(
      'CERTIFICATE_EXPIRED',
    );
    expect((await check('C-DESKTOP "1"', [String(data.claims.iat + 1)])).out).to.equal('CERTIFICATE_REVOKED');

    const [h, p, s] = data.certificate.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 86_400 })).toString('base64url')}.${s}`;
    const forgedFile = path.join(dir, 'forged.jws');
    fs.writeFileSync(forgedFile, forged);
    expect((await check('C-DESKTOP "1"', [], forgedFile)).out).to.equal('CERTIFICATE_INVALID');
    const unknown = await run(bin, [
      certFile,
      'not-pinned',
      pemFile,
      String(product.id),
      license.key,
      'C-DESKTOP "1"',
    ]);
    expect(unknown.out).to.equal('UNKNOWN_KEY');
  });

  it('reads a floating certificate’s seat, and accepts an ip-locked one that names no machine', async () => {
    const store = await createStore();
    const floating = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    await deps
      .knex('license_policies')
      .insert({ product_id: floating.id, floating: true, heartbeat_seconds: 600 });
    const seatLicense = await insertLicense(floating);
    const seated = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: floating.id, license_key: seatLicense.key, hwid: 'C-SEAT' },
    });
    expect(seated.status, seated.text).to.equal(200);
    const seatData = seated.body.data as {
      certificate: string;
      claims: { exp: number; seat: { id: number; generation: number } };
    };
    const seatFile = path.join(dir, 'seat.jws');
    fs.writeFileSync(seatFile, seatData.certificate);
    const { id, generation } = seatData.claims.seat;
    expect(
      await run(bin, [seatFile, kid, pemFile, String(floating.id), seatLicense.key, 'C-SEAT']),
    ).to.deep.equal({
      code: 0,
      out: `OK active ${seatData.claims.exp} seat ${id} ${generation}`,
    });

    const ipLocked = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'ip',
      license_max_activations: 1,
    });
    const ipLicense = await insertLicense(ipLocked);
    const res = await server.request('/verify/certificate', {
      method: 'POST',
      json: { product_id: ipLocked.id, license_key: ipLicense.key, hwid: 'C-ANY' },
    });
    expect(res.status, res.text).to.equal(200);
    const data = res.body.data as { certificate: string; claims: { exp: number } };
    const ipFile = path.join(dir, 'ip.jws');
    fs.writeFileSync(ipFile, data.certificate);
    for (const hwid of ['-', 'C-ANY', 'C-OTHER'])
      expect(await run(bin, [ipFile, kid, pemFile, String(ipLocked.id), ipLicense.key, hwid])).to.deep.equal({
        code: 0,
        out: `OK active ${data.claims.exp}`,
      });
  });
});
