import { rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Coupon, CustomField, Product, ProductPlan, Store, StorePaymentMethod } from '../../../db/models';
import { createPaymentMethod, createProduct, createStore } from '../../helpers/builders';
import type { Deps } from '../../../shared/deps';
import { forgetOnClose, isolatedDeps } from '../../helpers/deps';
import { startServer, TestResponse, TestServer } from '../../helpers/http';
import { randomIp } from '../../helpers/otp';

/**
 * The checkout suites' wiring: TRUST_PROXY so every request can come from its own address (the Embed API
 * allows 30 per minute per IP), and an UPLOAD_DIR of their own so a test can see exactly which files were
 * stored. One set of deps (one connection pool) serves every checkout suite of the run; each suite runs
 * its own server on it. Suites that need other settings pass `env` and get deps of their own.
 */
export interface CheckoutSuite {
  deps: Deps;
  server: TestServer;
  uploadDir: string;
  close(): Promise<void>;
}

interface Wiring {
  deps: Deps;
  uploadDir: string;
}

const wirings = new Map<string, Promise<Wiring>>();
forgetOnClose(() => wirings.clear());

async function wire(env: NodeJS.ProcessEnv): Promise<Wiring> {
  const uploadDir = await mkdtemp(path.join(os.tmpdir(), 'checkout-uploads-'));
  // The deps are closed by the test harness at the end of the run; the directory goes with the process.
  process.once('exit', () => rmSync(uploadDir, { recursive: true, force: true }));
  const deps = await isolatedDeps({ TRUST_PROXY: '1', UPLOAD_DIR: uploadDir, ...env });
  return { deps, uploadDir };
}

export async function checkoutSuite(env: NodeJS.ProcessEnv = {}): Promise<CheckoutSuite> {
  const key = JSON.stringify(env);
  let wiring = wirings.get(key);
  if (!wiring) {
    wiring = wire(env);
    wirings.set(key, wiring);
  }
  const { deps, uploadDir } = await wiring;
  const server = await startServer(deps);
  return { deps, server, uploadDir, close: () => server.close() };
}

export interface StoreSuite {
  suite: CheckoutSuite;
  store: Store;
  /** The Embed API as the store's own widget calls it. */
  api: EmbedCaller;
}

/**
 * What most checkout suites start from: a checkout suite (see checkoutSuite for `env`), a new store (with
 * the `store` columns given) and an Embed API caller for it. With `paymentMethod`, the store also gets one
 * payment method (the builder's defaults for the columns not given).
 */
export async function storeSuite(
  opts: {
    env?: NodeJS.ProcessEnv;
    store?: Parameters<typeof createStore>[0];
    paymentMethod?: Partial<StorePaymentMethod>;
  } = {},
): Promise<StoreSuite> {
  const suite = await checkoutSuite(opts.env);
  const store = await createStore(opts.store);
  if (opts.paymentMethod) await createPaymentMethod(store, opts.paymentMethod);
  return { suite, store, api: embedCaller(suite.server, store) };
}

export interface EmbedCaller {
  get(path: string): Promise<TestResponse>;
  post(path: string, json: unknown, token?: string): Promise<TestResponse>;
  postForm(path: string, form: FormData, token?: string): Promise<TestResponse>;
}

/** Calls the Embed API with the store's key, each request from a fresh client address. */
export function embedCaller(server: TestServer, store: Store): EmbedCaller {
  const headers = (token?: string): Record<string, string> => ({
    'X-Embed-Key': store.embed_key,
    'X-Forwarded-For': randomIp(),
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
  });
  return {
    get: (p) => server.request(p, { headers: headers() }),
    post: (p, json, token) => server.request(p, { method: 'POST', json, headers: headers(token) }),
    postForm: (p, form, token) => server.request(p, { method: 'POST', body: form, headers: headers(token) }),
  };
}

export const GUEST = {
  customer_first_name: 'Sara',
  customer_last_name: 'Ali',
  customer_email: 'sara@example.com',
  customer_phone: '500000001',
  customer_country_code: '966',
};

export async function createCoupon(store: Store, overrides: Partial<Coupon> = {}, productIds: number[] = []) {
  const coupon = await Coupon.query().insertAndFetch({
    store_id: store.id,
    code: `C${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
    type: 'percentage',
    amount: 1000,
    active: true,
    payment_restrictions: [],
    ...overrides,
  });
  for (const productId of productIds) {
    await Coupon.relatedQuery('products').for(coupon.id).relate(productId);
  }
  return coupon;
}

/**
 * A product with custom fields. jsonb arrays are written as JSON text: node-postgres would otherwise send
 * a JavaScript array as a Postgres array literal.
 */
export async function createProductWithFields(
  store: Store,
  fields: CustomField[],
  overrides: Partial<Product> = {},
): Promise<Product> {
  const product = await createProduct(store, overrides);
  await Product.knex()('products')
    .where('id', product.id)
    .update({ fields: JSON.stringify(fields) });
  return Product.query().findById(product.id).throwIfNotFound();
}

export async function createPlan(
  product: Product,
  overrides: Partial<ProductPlan> = {},
): Promise<ProductPlan> {
  return ProductPlan.query().insertAndFetch({
    product_id: product.id,
    name: 'Monthly',
    price_minor: 1000,
    duration: 'monthly',
    ...overrides,
  });
}

export async function addCodes(deps: Deps, product: Product, count: number): Promise<string[]> {
  const codes = Array.from({ length: count }, (_, i) => `KEY-${product.id}-${i}`);
  await deps.knex('product_codes').insert(codes.map((code) => ({ product_id: product.id, code })));
  return codes;
}

/** Every file under `dir`, relative to it. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

export const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'uploads');

export async function fixture(name: string): Promise<Buffer> {
  return readFile(path.join(FIXTURES, name));
}

/** A file part as a browser would send it. */
export function filePart(content: Buffer, name: string, type = 'application/octet-stream'): [Blob, string] {
  return [new Blob([new Uint8Array(content)], { type }), name];
}

export type Data = Record<string, unknown>;
export const dataOf = (res: TestResponse): Data => res.body.data as Data;
