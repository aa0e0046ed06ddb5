import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import type { Deps } from '../../../shared/deps';
import { createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { insertLicense, licensedProduct, times, verify } from './support';

const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** An answer as it reached the client: status, the exact body and the signature header. */
interface Wire {
  status: number;
  body: string;
  signature: string;
  retryAfter: string | null;
}

const wireOf = (res: TestResponse): Wire => ({
  status: res.status,
  body: res.text,
  signature: res.headers.get('x-signature') ?? '',
  retryAfter: res.headers.get('retry-after'),
});

type Outcome = { retryAfter: number } | Record<string, unknown>;

/**
 * The Node client steps of docs/license.md ("A client's checks"), written out: the signature over the exact
 * bytes, then decryption (a plain answer where an encrypted one is expected is refused, but for a 429 or
 * 503), then the binding (`request` is this request), the nonce and timestamp, then `data.product.id`.
 * `send` is the transport, so a test can put a relaying proxy between the client and the platform.
 */
async function clientVerify(
  client: { productId: number; publicKeyPem: string; productKey: string | null },
  licenseKey: string,
  hwid: string | undefined,
  send: (body: Record<string, unknown>) => Promise<Wire>,
): Promise<Outcome> {
  const nonce = crypto.randomBytes(16).toString('hex');
  const res = await send({ product_id: client.productId, license_key: licenseKey, hwid, nonce });
  if (
    !crypto.verify(
      null,
      Buffer.from(res.body, 'utf8'),
      client.publicKeyPem,
      Buffer.from(res.signature, 'base64'),
    )
  )
    throw new Error('forged answer');
  let doc = JSON.parse(res.body) as Record<string, unknown>;
  const retryLater = res.status === 429 || res.status === 503;
  if (doc.encrypted === true) {
    if (!client.productKey) throw new Error('unexpected encrypted answer');
    const decipher = crypto.createDecipheriv(
      'aes-256-gcm',
      Buffer.from(client.productKey, 'base64'),
      Buffer.from(String(doc.iv), 'base64'),
    );
    decipher.setAuthTag(Buffer.from(String(doc.tag), 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(String(doc.data), 'base64')), decipher.final()]);
    doc = JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
  } else if (client.productKey && !retryLater) {
    throw new Error('plain answer where an encrypted one is expected');
  }
  const request = (doc.request ?? {}) as Record<string, unknown>;
  if (
    request.product_id !== client.productId ||
    request.license_key_sha256 !== sha256(licenseKey) ||
    request.hwid !== (hwid ?? null)
  )
    throw new Error('answer to another request');
  if (doc.nonce !== nonce || Math.abs(Date.now() / 1000 - Number(doc.timestamp)) > 300)
    throw new Error('replayed answer');
  if (retryLater) return { retryAfter: Number(res.retryAfter) || 60 };
  const data = doc.data as { product?: { id?: unknown } } | undefined;
  if (doc.success === true && data?.product?.id !== client.productId)
    throw new Error('answer about another product');
  return doc;
}

async function refusedWith(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the client accepted the answer');
}

describe('License answers name the request they answer (the answer binding)', () => {
  let deps: Deps;
  let server: TestServer;
  let store: Store;
  let cheap: Product;
  let pricey: Product;
  let sealed: Product;
  let publicKeyPem: string;
  let sealedKey: string;

  const post = (path: string) => async (body: Record<string, unknown>) =>
    wireOf(await server.request(path, { method: 'POST', json: body }));

  before(async () => {
    deps = await isolatedDeps({ RATE_LIMITS: 'off' });
    server = await startServer(deps);
    store = await createStore();
    cheap = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    pricey = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 1,
    });
    sealed = await licensedProduct(store, deps.cipher, {
      license_encrypt: true,
      license_lock_type: 'hwid',
      license_max_activations: 2,
    });
    publicKeyPem = ((await server.request('/verify/public-key')).body.data as { public_key_pem: string })
      .public_key_pem;
    sealedKey = deps.cipher.decrypt(
      String(
        (await deps.knex('products').where({ id: sealed.id }).first('license_secret_encrypted'))
          .license_secret_encrypted,
      ),
    );
  });
  after(() => server.close());

  it('binds every answer of /verify and /verify/reset to the key as sent, the product and the hwid', async () => {
    const license = await insertLicense(cheap);
    // The key as sent, surrounding spaces and lower case included: the hash is of these exact bytes.
    const asSent = `  ${license.key.toLowerCase()} `;
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ['/verify', { product_id: cheap.id, license_key: asSent, hwid: 'PC-1' }, 200],
      ['/verify', { product_id: cheap.id, license_key: asSent, hwid: 'PC-2' }, 403],
      ['/verify', { product_id: cheap.id, license_key: asSent }, 400],
      ['/verify', { product_id: cheap.id, license_key: 'NO-SUCH-KEY', hwid: 'PC-1' }, 404],
      ['/verify', { product_id: cheap.id, license_key: asSent, hwid: 7 }, 422],
      ['/verify/reset', { product_id: cheap.id, license_key: asSent, hwid: 'PC-1' }, 200],
      ['/verify/reset', { product_id: cheap.id, license_key: 'NO-SUCH-KEY' }, 404],
    ];
    for (const [path, body, status] of cases) {
      const res = await server.request(path, { method: 'POST', json: { ...body, nonce: 'b-1' } });
      expect(res.status, `${path} ${JSON.stringify(body)}: ${res.text}`).to.equal(status);
      expect(res.body.request, `${path} ${JSON.stringify(body)}`).to.deep.equal({
        product_id: cheap.id,
        license_key_sha256: sha256(String(body.license_key)),
        hwid: typeof body.hwid === 'string' ? body.hwid : null,
      });
      expect(res.body.nonce).to.equal('b-1');
      expect(
        crypto.verify(
          null,
          Buffer.from(res.text),
          publicKeyPem,
          Buffer.from(res.headers.get('x-signature')!, 'base64'),
        ),
      ).to.equal(true);
    }
    // A field that is not of its type is named null: the client sees the answer is not about its request.
    const odd = await verify(server, { product_id: 'twelve', license_key: 42 });
    expect(odd.status).to.equal(422);
    expect(odd.body.request).to.deep.equal({ product_id: null, license_key_sha256: null, hwid: null });
  });

  it('carries activations.remaining as an integer: 0 for unlimited, never below 0', async () => {
    const unlimited = await licensedProduct(store, deps.cipher, {
      license_lock_type: 'hwid',
      license_max_activations: 0,
    });
    const license = await insertLicense(unlimited);
    const res = await verify(server, { product_id: unlimited.id, license_key: license.key, hwid: 'U-1' });
    expect((res.body.data as { activations: unknown }).activations).to.deep.equal({
      current: 1,
      max: 0,
      remaining: 0,
    });
    const reset = await server.request('/verify/reset', {
      method: 'POST',
      json: { product_id: unlimited.id, license_key: license.key },
    });
    expect((reset.body.data as { activations: unknown }).activations).to.deep.equal({
      current: 0,
      max: 0,
      remaining: 0,
    });
  });

  it('signs a body that is not JSON as a License answer bound to an unknown request', async () => {
    const res = await server.request('/verify', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"product_id": 1,',
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ success: false, error_code: 'INVALID_REQUEST', nonce: null });
    expect(res.body.request).to.deep.equal({ product_id: null, license_key_sha256: null, hwid: null });
    expect(
      crypto.verify(
        null,
        Buffer.from(res.text),
        publicKeyPem,
        Buffer.from(res.headers.get('x-signature')!, 'base64'),
      ),
    ).to.equal(true);
  });

  describe('the documented client', () => {
    it('accepts its own answer, plain and encrypted', async () => {
      const license = await insertLicense(cheap);
      const client = { productId: cheap.id, publicKeyPem, productKey: null };
      const doc = await clientVerify(client, license.key, 'HOME-PC', post('/verify'));
      expect(doc).to.include({ success: true });
      const own = await insertLicense(sealed);
      const sealedClient = { productId: sealed.id, publicKeyPem, productKey: sealedKey };
      const sealedDoc = await clientVerify(sealedClient, own.key, 'HOME-PC', post('/verify'));
      expect(sealedDoc).to.include({ success: true });
      expect((sealedDoc as { data: { product: { id: number } } }).data.product.id).to.equal(sealed.id);
    });

    it('refuses a real answer about another store’s cheap license relayed to this product', async () => {
      const cheapLicense = await insertLicense(cheap);
      const client = { productId: pricey.id, publicKeyPem, productKey: null };
      // The proxy asks about the cheap license it holds, whatever the software asked.
      const relay = async (body: Record<string, unknown>): Promise<Wire> =>
        post('/verify')({ ...body, product_id: cheap.id, license_key: cheapLicense.key });
      expect(await refusedWith(clientVerify(client, 'PRICEY-KEY-THE-USER-TYPED', 'PC', relay))).to.equal(
        'answer to another request',
      );
    });

    it('refuses one key’s answer relayed to another machine (another hwid)', async () => {
      const license = await insertLicense(cheap);
      const client = { productId: cheap.id, publicKeyPem, productKey: null };
      await clientVerify(client, license.key, 'FIRST-PC', post('/verify'));
      const relay = async (body: Record<string, unknown>): Promise<Wire> =>
        post('/verify')({ ...body, hwid: 'FIRST-PC' });
      expect(await refusedWith(clientVerify(client, license.key, 'SECOND-PC', relay))).to.equal(
        'answer to another request',
      );
    });

    it('refuses a plain answer where it expects an encrypted one', async () => {
      const license = await insertLicense(cheap);
      const client = { productId: sealed.id, publicKeyPem, productKey: sealedKey };
      // A genuine, signed, plain success of another product, answered to a request for the sealed one.
      const relay = async (body: Record<string, unknown>): Promise<Wire> =>
        post('/verify')({ ...body, product_id: cheap.id, license_key: license.key });
      expect(await refusedWith(clientVerify(client, license.key, 'PC', relay))).to.equal(
        'plain answer where an encrypted one is expected',
      );
    });

    it('refuses an answer whose signature does not hold, and a replayed one', async () => {
      const license = await insertLicense(cheap);
      const client = { productId: cheap.id, publicKeyPem, productKey: null };
      const tamper = async (body: Record<string, unknown>): Promise<Wire> => {
        const wire = await post('/verify')(body);
        return { ...wire, body: wire.body.replace('"success":true', '"success":true ') };
      };
      expect(await refusedWith(clientVerify(client, license.key, 'PC', tamper))).to.equal('forged answer');
      let recorded: Wire | null = null;
      const record = async (body: Record<string, unknown>): Promise<Wire> =>
        (recorded = await post('/verify')(body));
      await clientVerify(client, license.key, 'PC', record);
      expect(
        await refusedWith(clientVerify(client, license.key, 'PC', () => Promise.resolve(recorded!))),
      ).to.equal('replayed answer');
    });

    it('takes a signed, bound 429 as "try later", also for a product that encrypts', async () => {
      const limited = await isolatedDeps({ RATE_LIMITS: 'on' });
      const limitedServer = await startServer(limited);
      try {
        const license = await insertLicense(sealed);
        const body = { product_id: sealed.id, license_key: license.key, hwid: 'RL' };
        const responses = await times(61, () => verify(limitedServer, body));
        const tooMany = responses.find((r) => r.status === 429)!;
        expect(tooMany, 'the 61st request in the minute').to.not.equal(undefined);
        const client = { productId: sealed.id, publicKeyPem, productKey: sealedKey };
        const send = async (sent: Record<string, unknown>): Promise<Wire> =>
          wireOf(await limitedServer.request('/verify', { method: 'POST', json: sent }));
        const outcome = await clientVerify(client, license.key, 'RL', send);
        expect(outcome).to.have.property('retryAfter').that.is.within(1, 60);
      } finally {
        await limitedServer.close();
      }
    });
  });
});
