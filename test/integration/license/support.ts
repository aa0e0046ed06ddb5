import crypto from 'node:crypto';
import { expect } from 'chai';
import { License, Product, Store } from '../../../db/models';
import { createProduct } from '../../helpers/builders';
import type { TestResponse, TestServer } from '../../helpers/http';

/** A product with license generation on; encryption key made like the seed command makes it. */
export async function licensedProduct(
  store: Store,
  cipher: { encrypt(plain: string): string },
  overrides: Partial<Product> = {},
): Promise<Product> {
  const encrypt = overrides.license_encrypt ?? false;
  return createProduct(store, {
    license_enabled: true,
    license_prefix: 'TEST',
    license_lock_type: 'none',
    license_max_activations: 0,
    license_encrypt: encrypt,
    license_secret_encrypted: encrypt ? cipher.encrypt(crypto.randomBytes(32).toString('base64')) : null,
    ...overrides,
  });
}

let keySeq = 0;
/** A license row as fulfilment leaves it (active, lock settings copied from the product). */
export async function insertLicense(product: Product, overrides: Partial<License> = {}): Promise<License> {
  keySeq += 1;
  const group = (): string => crypto.randomBytes(2).toString('hex').toUpperCase().replace(/[01]/g, 'A');
  return License.query().insertAndFetch({
    store_id: product.store_id,
    product_id: product.id,
    key: `TEST-${group()}-${group()}-${group()}-${String(keySeq).padStart(4, 'Z')}`,
    status: 'active',
    lock_type: product.license_lock_type ?? 'none',
    max_activations: product.license_max_activations,
    starts_at: new Date('2026-11-01T10:00:00Z'),
    expires_at: null,
    metadata: null,
    ...overrides,
  });
}

/** A completed order of `store`, enough for cancelOrder to act on. */
export async function insertOrder(knex: import('knex').Knex, store: Store): Promise<number> {
  const [row] = await knex('orders')
    .insert({
      store_id: store.id,
      status: 4,
      customer_first_name: 'Lic',
      customer_last_name: 'Buyer',
      customer_email: 'lic@example.com',
      customer_country_code: '966',
      customer_phone: '500000123',
      subtotal_minor: 1000,
      total_minor: 1000,
      currency: 'SAR',
    })
    .returning('id');
  return (row as { id: number }).id;
}

export interface VerifyCall {
  product_id?: unknown;
  license_key?: unknown;
  hwid?: unknown;
  nonce?: unknown;
  [key: string]: unknown;
}

/** POST /verify with a JSON body; checks every answer carries a signature header. */
export async function verify(
  server: TestServer,
  body: VerifyCall,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const res = await server.request('/verify', { method: 'POST', json: body, headers });
  expect(res.headers.get('x-signature'), 'every answer is signed').to.be.a('string').and.not.equal('');
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  return res;
}

/** Asserts a refusal in the License envelope with this status and error_code. */
export function expectRefusal(res: TestResponse, status: number, code: string): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.body).to.include({ success: false, error_code: code });
  expect(res.body.message).to.be.a('string').and.not.equal('');
}

export const times = <T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
