import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { licenseSettingsForMerchant } from '../../../shared/services/licenses';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { insertLicense, licensedProduct, times, verify } from './support';

/** The documented client-side steps (docs/license.md), written out with node:crypto only. */
function decrypt(keyBase64: string, body: Record<string, unknown>): Record<string, unknown> {
  const key = Buffer.from(keyBase64, 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(String(body.iv), 'base64'));
  decipher.setAuthTag(Buffer.from(String(body.tag), 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(String(body.data), 'base64')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
}

function verifySignature(publicKeyBase64: string, res: TestResponse, body = res.text): boolean {
  // Raw 32-byte Ed25519 key -> SPKI DER: the fixed 12-byte prefix, then the key.
  const spki = Buffer.concat([
    Buffer.from('302a300506032b6570032100', 'hex'),
    Buffer.from(publicKeyBase64, 'base64'),
  ]);
  const key = crypto.createPublicKey({ key: spki, format: 'der', type: 'spki' });
  return crypto.verify(
    null,
    Buffer.from(body, 'utf8'),
    key,
    Buffer.from(res.headers.get('x-signature') ?? '', 'base64'),
  );
}

describe('License Verification API: signed and encrypted answers, rate limit', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let plain: Product;
  let sealed: Product;
  let publicKey: string;

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    plain = await licensedProduct(store, deps.cipher);
    sealed = await licensedProduct(store, deps.cipher, {
      license_encrypt: true,
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    const res = await server.request('/verify/public-key');
    expect(res.status).to.equal(200);
    const data = res.body.data as Record<string, string>;
    expect(data.algorithm).to.equal('Ed25519');
    expect(Buffer.from(data.public_key!, 'base64')).to.have.length(32);
    expect(data.public_key_pem).to.match(/^-----BEGIN PUBLIC KEY-----/);
    expect(data.key_id).to.match(/^[0-9a-f]{16}$/);
    publicKey = data.public_key!;
  });
  after(() => server.close());

  describe('signatures', () => {
    it('signs the exact body of a result with the published key; a changed byte fails', async () => {
      const license = await insertLicense(plain);
      const res = await verify(server, { product_id: plain.id, license_key: license.key, nonce: 'abc-123' });
      expect(res.status).to.equal(200);
      expect(verifySignature(publicKey, res)).to.equal(true);
      expect(res.body).to.include({ nonce: 'abc-123' });
      // One changed byte anywhere in the body: the signature no longer holds.
      const i = res.text.indexOf('active');
      const tampered = res.text.slice(0, i) + 'Active' + res.text.slice(i + 6);
      expect(verifySignature(publicKey, res, tampered)).to.equal(false);
      // A replay with another nonce: the echoed nonce tells the client.
      expect(verifySignature(publicKey, res, res.text.replace('abc-123', 'abc-124'))).to.equal(false);
      expect(res.headers.get('x-signature-key-id')).to.match(/^[0-9a-f]{16}$/);
    });

    it('signs refusals and validation errors too', async () => {
      const notFound = await verify(server, { product_id: plain.id, license_key: 'NOPE', nonce: 'r1' });
      expect(notFound.status).to.equal(404);
      expect(notFound.body).to.include({ nonce: 'r1' });
      expect(verifySignature(publicKey, notFound)).to.equal(true);
      const invalid = await verify(server, { product_id: 'x', nonce: 'r2' });
      expect(invalid.status).to.equal(422);
      expect(invalid.body).to.include({ nonce: 'r2' });
      expect(verifySignature(publicKey, invalid)).to.equal(true);
    });

    it('keeps one key pair for the deployment: another process signs with the same key', async () => {
      const other = await isolatedDeps({ RATE_LIMITS: 'off' });
      const otherServer = await startServer(other);
      try {
        const license = await insertLicense(plain);
        const res = await verify(otherServer, { product_id: plain.id, license_key: license.key });
        expect(verifySignature(publicKey, res)).to.equal(true);
        const row = await deps.knex('platform_settings').where({ key: 'license_signing_key' }).first('value');
        expect(String(row.value), 'private key sealed at rest').to.match(/^v2\.[A-Za-z0-9_-]{11}\./);
        expect(String(row.value)).to.not.include('PRIVATE KEY');
      } finally {
        await otherServer.close();
      }
    });
  });

  describe('encryption', () => {
    const productKey = async (product: Product): Promise<string> =>
      deps.cipher.decrypt(
        (await deps.knex('products').where({ id: product.id }).first('license_secret_encrypted'))
          .license_secret_encrypted as string,
      );

    it('encrypts a result with the product key, a fresh IV per answer, signature over the ciphertext', async () => {
      const license = await insertLicense(sealed);
      const key = await productKey(sealed);
      const body = { product_id: sealed.id, license_key: license.key, hwid: 'ENC-1', nonce: 'enc-nonce' };
      const first = await verify(server, body);
      const second = await verify(server, body);
      for (const res of [first, second]) {
        expect(res.status).to.equal(200);
        expect(res.body).to.have.all.keys('encrypted', 'alg', 'iv', 'tag', 'data');
        expect(res.body).to.include({ encrypted: true, alg: 'AES-256-GCM' });
        expect(Buffer.from(String(res.body.iv), 'base64')).to.have.length(12);
        expect(Buffer.from(String(res.body.tag), 'base64')).to.have.length(16);
        expect(res.text).to.not.include(license.key);
        expect(verifySignature(publicKey, res)).to.equal(true);
      }
      expect(first.body.iv).to.not.equal(second.body.iv);
      const doc = decrypt(key, first.body);
      expect(doc).to.include({ success: true, nonce: 'enc-nonce' });
      expect(doc.timestamp).to.be.a('number');
      expect(doc.data).to.deep.include({ status: 'active', lock_type: 'hwid' });
      expect((doc.data as { activations: unknown }).activations).to.deep.equal({
        current: 1,
        max: 1,
        remaining: 0,
      });
      // A flipped ciphertext byte fails GCM authentication.
      const data = Buffer.from(String(first.body.data), 'base64');
      data[0] ^= 1;
      expect(() => decrypt(key, { ...first.body, data: data.toString('base64') })).to.throw();
    });

    it('encrypts every refusal and validation error of the product too', async () => {
      const license = await insertLicense(sealed);
      const key = await productKey(sealed);
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ product_id: sealed.id, license_key: 'UNKNOWN-KEY' }, 404, 'LICENSE_NOT_FOUND'],
        [{ product_id: sealed.id, license_key: license.key }, 400, 'HWID_REQUIRED'],
        [{ product_id: sealed.id, license_key: license.key, hwid: 'ONE' }, 200, ''],
        [{ product_id: sealed.id, license_key: license.key, hwid: 'TWO' }, 403, 'ACTIVATION_LIMIT_REACHED'],
        [{ product_id: sealed.id, license_key: 42, nonce: 'v' }, 422, 'VALIDATION_FAILED'],
      ];
      for (const [body, status, code] of cases) {
        const res = await verify(server, body);
        expect(res.status, JSON.stringify(body)).to.equal(status);
        expect(res.body.encrypted).to.equal(true);
        const doc = decrypt(key, res.body);
        if (code) expect(doc).to.include({ success: false, error_code: code });
        else expect(doc.success).to.equal(true);
      }
    });

    it('shows the merchant the same key the answers are encrypted with', async () => {
      const settings = await licenseSettingsForMerchant(deps, store.id, sealed.id);
      expect(settings).to.deep.include({
        enabled: true,
        encrypt: true,
        lock_type: 'hwid',
        max_activations: 1,
      });
      expect(settings.encryption_key).to.equal(await productKey(sealed));
      expect((await licenseSettingsForMerchant(deps, store.id, plain.id)).encryption_key).to.equal(null);
      // A product that turned encryption on without a key gets one made once, then kept.
      const fresh = await licensedProduct(store, deps.cipher);
      await deps.knex('products').where({ id: fresh.id }).update({ license_encrypt: true });
      const made = await licenseSettingsForMerchant(deps, store.id, fresh.id);
      expect(Buffer.from(made.encryption_key!, 'base64')).to.have.length(32);
      expect((await licenseSettingsForMerchant(deps, store.id, fresh.id)).encryption_key).to.equal(
        made.encryption_key,
      );
      const license = await insertLicense(fresh);
      const res = await verify(server, { product_id: fresh.id, license_key: license.key });
      expect(decrypt(made.encryption_key!, res.body).success).to.equal(true);
      const otherStore = await createStore();
      let error: Error | null = null;
      await licenseSettingsForMerchant(deps, otherStore.id, fresh.id).catch((e: Error) => (error = e));
      expect(error).to.have.property('message', 'Product not found');
    });
  });

  describe('rate limit', () => {
    it('lets 60 requests a minute per IP through and answers the rest 429 with a message and the binding, signed', async () => {
      const limited = await isolatedDeps({ RATE_LIMITS: 'on' });
      const limitedServer = await startServer(limited);
      try {
        const license = await insertLicense(sealed);
        const responses = await times(70, (i) =>
          verify(limitedServer, { product_id: sealed.id, license_key: license.key, hwid: `RL-${i % 2}` }),
        );
        const tooMany = responses.filter((r) => r.status === 429);
        expect(tooMany).to.have.length(10);
        expect(responses.filter((r) => r.status !== 429)).to.have.length(60);
        for (const res of tooMany) {
          // The spec's message, bound to the request it refuses; never encrypted (it costs no database read).
          expect(res.body).to.have.all.keys('message', 'request', 'nonce', 'timestamp');
          expect(res.body.message).to.equal('Too many requests. Please try again later.');
          expect(res.body.request).to.deep.equal({
            product_id: sealed.id,
            license_key_sha256: crypto.createHash('sha256').update(license.key).digest('hex'),
            hwid: (res.body.request as { hwid: string }).hwid,
          });
          expect((res.body.request as { hwid: string }).hwid).to.match(/^RL-[01]$/);
          expect(Number(res.headers.get('retry-after'))).to.be.within(1, 60);
          expect(verifySignature(publicKey, res)).to.equal(true);
        }
      } finally {
        await limitedServer.close();
      }
    });
  });
});
