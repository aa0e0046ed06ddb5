import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Coupon, Customer, License, Product, ProductCode, Store, StorePaymentMethod } from '../../db/models';
import { sha256 } from '../../shared/crypto';
import type { Deps } from '../../shared/deps';
import { FixtureError, loadFixture, Manifest } from '../../shared/services/seed';
import { findCustomerToken, findMerchantToken } from '../../shared/services/tokens';
import { createStore } from '../helpers/builders';
import { sharedDeps, truncateAll } from '../helpers/deps';
import { TEST_ENV } from '../helpers/env';

const ROOT = path.resolve(__dirname, '../..');

type Json = Record<string, unknown>;
type Rows = Record<string, Json[]>;

async function readJson(file: string): Promise<Json> {
  return JSON.parse(await readFile(path.join(ROOT, file), 'utf8')) as Json;
}

/** The contract's example fixture, freshly parsed so each test may edit its own copy. */
const contractExample = (): Promise<Json> => readJson('test/fixtures/contract-example.json');

/** A parsed fixture store, typed just enough for tests to edit it. */
type EditableStore = Json & {
  products: Json[];
  customers: Json[];
  coupons: Json[];
  licenses: Json[];
  domains: string[];
  payment_methods: Json;
};

const firstStore = (fixture: Json): EditableStore => (fixture.stores as EditableStore[])[0];

async function tableNames(deps: Deps): Promise<string[]> {
  const { rows } = await deps.knex.raw<{ rows: { tablename: string }[] }>(
    "select tablename from pg_tables where schemaname = 'public' and tablename not like 'knex_%' and tablename <> 'platform_settings' order by tablename",
  );
  return rows.map((r) => r.tablename);
}

/** Every row of every table, in a stable order: what "changes nothing" is checked against. */
async function snapshot(deps: Deps): Promise<Rows> {
  const out: Rows = {};
  for (const table of await tableNames(deps)) {
    const rows: Json[] = await deps.knex(table).select('*');
    out[table] = rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

async function rowCounts(deps: Deps): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await tableNames(deps)) {
    const [{ count }] = await deps.knex(table).count<{ count: number }[]>('* as count');
    out[table] = Number(count);
  }
  return out;
}

/** Runs the seed CLI as the operator would, with the test database and secret. */
function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['scripts/seed.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...TEST_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

async function expectRefused(deps: Deps, fixture: unknown, fieldPath: string): Promise<FixtureError> {
  let caught: unknown;
  try {
    await loadFixture(deps, fixture);
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected ${fieldPath} to be refused`).to.be.instanceOf(FixtureError);
  const error = caught as FixtureError;
  expect(error.path).to.equal(fieldPath);
  expect(error.message.startsWith(`${fieldPath}: `), error.message).to.equal(true);
  return error;
}

describe('seed command', () => {
  let deps: Deps;

  before(async () => {
    deps = await sharedDeps();
  });

  beforeEach(async () => {
    await truncateAll(deps);
  });

  describe('loading the contract example', () => {
    let manifest: Manifest;

    beforeEach(async () => {
      manifest = await loadFixture(deps, await contractExample());
    });

    it('prints a manifest of the contract shape whose ids are the rows written', async () => {
      expect(Object.keys(manifest.stores)).to.deep.equal(['acme']);
      const acme = manifest.stores.acme;
      expect(acme).to.have.all.keys(
        'id',
        'embed_key',
        'categories',
        'products',
        'coupons',
        'customers',
        'licenses',
      );

      const store = await Store.query().findById(acme.id);
      expect(store).to.include({ fixture_ref: 'acme', name: 'Acme Digital', currency: 'SAR', plan: 'paid' });
      expect(store?.embed_key).to.equal('emb_pk_acme_0001');
      expect(acme.embed_key).to.equal('emb_pk_acme_0001');
      expect(store?.allowed_origins).to.deep.equal(['https://shop.acme.test']);
      expect(store).to.include({ tax_mode: 'none', tax_rate_bp: 0 });

      const category = await deps.knex('categories').where({ store_id: acme.id, slug: 'games' }).first();
      expect(acme.categories).to.deep.equal({ games: category.id });

      const product = await Product.query().findOne({ store_id: acme.id, slug: 'ebook' });
      const plan = await deps
        .knex('product_plans')
        .where({ product_id: product?.id, fixture_ref: 'monthly' })
        .first();
      expect(acme.products).to.deep.equal({ ebook: { id: product?.id, plans: { monthly: plan.id } } });
      expect(plan).to.include({ name: 'Monthly', price_minor: 1000, duration: 'monthly', active: true });

      const coupon = await Coupon.query().findOne({ store_id: acme.id, code: 'SAVE10' });
      expect(acme.coupons).to.deep.equal({ SAVE10: coupon?.id });

      const customer = await Customer.query().findOne({ store_id: acme.id, e164: '966500000001' });
      expect(acme.customers.sara.id).to.equal(customer?.id);
      expect(acme.customers.sara.storefront_token).to.match(/^cst_[A-Za-z0-9_-]{43}$/);
      expect(customer).to.include({ first_name: 'Sara', last_name: 'Ali', email: 'sara@example.com' });
      expect(customer).to.include({ country_code: '966', phone: '500000001', fixture_ref: 'sara' });

      const license = await License.query().findOne({ key: 'ACME-AAAA-BBBB-CCCC-DDDD' });
      expect(acme.licenses).to.deep.equal({ lic1: { id: license?.id, key: 'ACME-AAAA-BBBB-CCCC-DDDD' } });
      expect(license).to.include({
        store_id: acme.id,
        product_id: product?.id,
        plan_id: plan.id,
        customer_id: customer?.id,
        status: 'active',
        lock_type: 'hwid',
        max_activations: 2,
      });
      expect(license?.expires_at?.toISOString()).to.equal('2030-01-01T00:00:00.000Z');
    });

    it('stores prices, fields, codes, license settings and FiveM commands of a product', async () => {
      const product = await Product.query().findById(manifest.stores.acme.products.ebook.id);
      expect(product).to.include({
        type: 'product',
        price_minor: 5000,
        sale_price_minor: 4000,
        active: true,
      });
      expect(product).to.include({ stock: null, fixture_ref: 'ebook' });
      expect(product?.fields).to.deep.equal([
        { type: 'text', label: 'Player name', required: true },
        {
          type: 'select',
          label: 'Edition',
          required: false,
          options: [
            { label: 'Standard', price_minor: 0 },
            { label: 'Deluxe', price_minor: 1550 },
          ],
        },
        { type: 'image', label: 'Avatar', required: false },
      ]);
      expect(product).to.include({
        license_enabled: true,
        license_prefix: 'ACME',
        license_lock_type: 'hwid',
        license_max_activations: 2,
        license_encrypt: false,
        license_secret_encrypted: null,
      });

      const categories = await product?.$relatedQuery('categories');
      expect(categories?.map((c) => c.slug)).to.deep.equal(['games']);
      const codes = await ProductCode.query().where({ product_id: product?.id }).orderBy('code');
      expect(codes.map((c) => [c.code, c.status])).to.deep.equal([
        ['KEY-0001', 'available'],
        ['KEY-0002', 'available'],
      ]);
      const commands = await product?.$relatedQuery('fivem_commands');
      expect(commands?.map((c) => [c.command, c.require_online, c.position])).to.deep.equal([
        ['give {player} vip', true, 0],
      ]);
    });

    it('stores coupons in basis points or minor units with their products and restrictions', async () => {
      const coupon = await Coupon.query()
        .findById(manifest.stores.acme.coupons.SAVE10)
        .withGraphFetched('products');
      expect(coupon).to.include({
        type: 'percentage',
        amount: 1000,
        active: true,
        max_uses: 100,
        uses_count: 0,
      });
      expect(coupon).to.include({ min_order_minor: 2000 });
      expect(coupon?.payment_restrictions).to.deep.equal(['card', 'mada']);
      expect(coupon?.expires_at?.toISOString()).to.equal('2030-01-01T00:00:00.000Z');
      expect(coupon?.products?.map((p) => p.id)).to.deep.equal([manifest.stores.acme.products.ebook.id]);
    });

    it('stores domains, blocked phones, reviews and every payment method', async () => {
      const storeId = manifest.stores.acme.id;
      const domains = await deps.knex('store_domains').where({ store_id: storeId }).pluck('domain');
      expect(domains).to.deep.equal(['acme.localhost']);
      const blocked = await deps.knex('blocked_phones').where({ store_id: storeId });
      expect(blocked.map((b) => [b.country_code, b.phone, b.e164])).to.deep.equal([
        ['966', '500000099', '966500000099'],
      ]);

      const reviews = await deps.knex('reviews').where({ store_id: storeId });
      expect(
        reviews.map((r) => [r.product_id, r.customer_id, r.rating, r.comment, r.published]),
      ).to.deep.equal([
        [manifest.stores.acme.products.ebook.id, manifest.stores.acme.customers.sara.id, 5, 'Great', true],
      ]);

      const methods = await StorePaymentMethod.query().where({ store_id: storeId }).orderBy('position');
      expect(methods.map((m) => [m.method, m.provider, m.active])).to.deep.equal([
        ['card', 'sandbox', true],
        ['mada', 'sandbox', true],
        ['stcpay', 'sandbox', true],
        ['applepay', 'sandbox', true],
        ['paypal', 'paypal', true],
        ['bank', 'bank', true],
        ['coinbase', 'sandbox', true],
      ]);
      expect(methods.find((m) => m.method === 'paypal')?.settings).to.deep.equal({ email: 'pay@acme.test' });
      expect(methods.find((m) => m.method === 'bank')?.settings).to.deep.equal({
        bank_name: 'Acme Bank',
        account_name: 'Acme LLC',
        account_number: '0001',
        iban: 'SA0000000000000000000001',
      });
      expect(methods.every((m) => m.credentials_encrypted === null)).to.equal(true);
    });

    it('gives each customer a storefront token that authenticates on that store', async () => {
      const { id, storefront_token: token } = manifest.stores.acme.customers.sara;
      const found = await findCustomerToken(Customer.knex(), token);
      expect(found?.customer.id).to.equal(id);
      expect(found?.store_id).to.equal(manifest.stores.acme.id);
      expect(found?.abilities).to.deep.equal(['storefront']);
      expect(found?.name).to.equal('storefront');
      expect(found && found.expires_at.getTime() > Date.now() + 80 * 86_400_000).to.equal(true);
    });

    it('keeps merchant tokens and the FiveM secret only as SHA-256 hashes', async () => {
      const storeId = manifest.stores.acme.id;
      expect(
        await deps.knex('merchant_tokens').where({ store_id: storeId }).pluck('token_hash'),
      ).to.deep.equal([sha256('mt_acme_secret_0001')]);
      expect(
        await deps.knex('fivem_servers').where({ store_id: storeId }).pluck('secret_hash'),
      ).to.deep.equal([sha256('fivem_acme_secret_0001')]);
      expect((await findMerchantToken(Customer.knex(), 'mt_acme_secret_0001'))?.store.id).to.equal(storeId);

      const everything = JSON.stringify(await snapshot(deps));
      for (const plain of [
        'mt_acme_secret_0001',
        'fivem_acme_secret_0001',
        manifest.stores.acme.customers.sara.storefront_token,
      ]) {
        expect(everything).not.to.include(plain);
      }
    });

    it('prints the same manifest and changes no row when the same file is loaded again', async () => {
      const before = await snapshot(deps);
      const again = await loadFixture(deps, await contractExample());
      expect(again).to.deep.equal(manifest);
      expect(await snapshot(deps)).to.deep.equal(before);
    });

    it('revives the seeded storefront token when it has expired, keeping the same token', async () => {
      const { storefront_token: token } = manifest.stores.acme.customers.sara;
      await deps.knex('customer_access_tokens').update({ expires_at: new Date(Date.now() - 1000) });
      expect(await findCustomerToken(Customer.knex(), token)).to.equal(null);

      const again = await loadFixture(deps, await contractExample());
      expect(again).to.deep.equal(manifest);
      expect((await findCustomerToken(Customer.knex(), token))?.customer.id).to.equal(
        manifest.stores.acme.customers.sara.id,
      );
      expect(
        await deps.knex('customer_access_tokens').count<{ count: number }[]>('* as count'),
      ).to.deep.equal([{ count: 1 }]);
    });

    it('updates an edited fixture in place and never touches code keys already in use', async () => {
      const productId = manifest.stores.acme.products.ebook.id;
      await deps
        .knex('product_codes')
        .where({ product_id: productId, code: 'KEY-0001' })
        .update({ status: 'reserved' });

      const edited = await contractExample();
      const product = firstStore(edited).products[0];
      product.price = '55.00';
      product.codes = ['KEY-0001', 'KEY-0003'];
      product.fivem_commands = [];
      const again = await loadFixture(deps, edited);

      expect(again).to.deep.equal(manifest);
      expect((await Product.query().findById(productId))?.price_minor).to.equal(5500);
      const codes = await ProductCode.query().where({ product_id: productId }).orderBy('code');
      expect(codes.map((c) => [c.code, c.status])).to.deep.equal([
        ['KEY-0001', 'reserved'],
        ['KEY-0002', 'available'],
        ['KEY-0003', 'available'],
      ]);
      expect(await deps.knex('product_fivem_commands').where({ product_id: productId })).to.deep.equal([]);
    });
  });

  describe('secrets and generated values', () => {
    async function withGatewayCredentials(): Promise<Json> {
      const fixture = await contractExample();
      const store = firstStore(fixture);
      store.payment_methods.card = {
        provider: 'moyasar',
        secret_key: 'sk_test_plaintext_card_key',
        publishable_key: 'pk_test_card',
        min_amount: '1.00',
        max_amount: '5000.00',
      };
      (store.products[0].license as Json).encrypt = true;
      delete store.embed_key;
      return fixture;
    }

    it('encrypts gateway credentials, keeps them out of settings and reloads without changing a row', async () => {
      const first = await loadFixture(deps, await withGatewayCredentials());
      const card = await StorePaymentMethod.query().findOne({
        store_id: first.stores.acme.id,
        method: 'card',
      });
      expect(card).to.include({ provider: 'moyasar', min_amount_minor: 100, max_amount_minor: 500_000 });
      expect(card?.settings).to.deep.equal({});
      expect(JSON.parse(deps.cipher.decrypt(card?.credentials_encrypted ?? ''))).to.deep.equal({
        secret_key: 'sk_test_plaintext_card_key',
        publishable_key: 'pk_test_card',
      });
      expect(JSON.stringify(await snapshot(deps))).not.to.include('sk_test_plaintext_card_key');

      const product = await Product.query().findById(first.stores.acme.products.ebook.id);
      expect(product?.license_encrypt).to.equal(true);
      expect(
        Buffer.from(deps.cipher.decrypt(product?.license_secret_encrypted ?? ''), 'base64'),
      ).to.have.length(32);

      expect(first.stores.acme.embed_key).to.match(/^emb_pk_[A-Za-z0-9_-]{32}$/);

      const before = await snapshot(deps);
      const again = await loadFixture(deps, await withGatewayCredentials());
      expect(again).to.deep.equal(first);
      expect(await snapshot(deps)).to.deep.equal(before);
    });
  });

  describe('refusing a fixture that breaks the format', () => {
    /** The contract example with two more products, so a bad field can sit at products[2]. */
    async function threeProducts(): Promise<Json> {
      const fixture = await contractExample();
      const products = firstStore(fixture).products;
      products.push(
        { ref: 'guide', name: 'Guide', slug: 'guide', type: 'service', price: '12.00' },
        { ref: 'keys', name: 'Keys', slug: 'keys', type: 'code', price: '30.00', codes: ['K-1'] },
      );
      return fixture;
    }

    const cases: {
      name: string;
      path: string;
      message?: string;
      edit: (store: EditableStore) => void;
    }[] = [
      {
        name: 'a price with three decimals',
        path: 'stores[0].products[2].price',
        message: 'stores[0].products[2].price: must be a decimal string with at most two decimals',
        edit: (s) => (s.products[2].price = '12.345'),
      },
      {
        name: 'a price given as a number',
        path: 'stores[0].products[1].price',
        edit: (s) => (s.products[1].price = 12),
      },
      {
        name: 'an unknown category ref',
        path: 'stores[0].products[0].categories[0]',
        message: 'stores[0].products[0].categories[0]: unknown category ref "movies"',
        edit: (s) => (s.products[0].categories = ['movies']),
      },
      {
        name: 'a product type outside the enum',
        path: 'stores[0].products[0].type',
        edit: (s) => (s.products[0].type = 'bundle'),
      },
      {
        name: 'a plan duration outside the enum',
        path: 'stores[0].products[0].plans[0].duration',
        edit: (s) => ((s.products[0].plans as Json[])[0].duration = 'weekly'),
      },
      {
        name: 'a duplicate product ref',
        path: 'stores[0].products[2].ref',
        message: 'stores[0].products[2].ref: duplicate product ref "ebook"',
        edit: (s) => (s.products[2].ref = 'ebook'),
      },
      {
        name: 'a phone with a plus sign',
        path: 'stores[0].customers[0].phone',
        edit: (s) => (s.customers[0].phone = '+966500000001'),
      },
      {
        name: 'a country code with a plus sign',
        path: 'stores[0].blocked_phones[0].country_code',
        edit: (s) => ((s.blocked_phones as Json[])[0].country_code = '+966'),
      },
      {
        name: 'a coupon naming an unknown product',
        path: 'stores[0].coupons[0].products[0]',
        edit: (s) => (s.coupons[0].products = ['nothing']),
      },
      {
        name: 'a percentage coupon above 100',
        path: 'stores[0].coupons[0].amount',
        edit: (s) => (s.coupons[0].amount = '100.01'),
      },
      {
        name: 'a license plan of another product',
        path: 'stores[0].licenses[0].plan',
        edit: (s) => (s.licenses[0].plan = 'yearly'),
      },
      {
        name: 'a review by an unknown customer',
        path: 'stores[0].reviews[0].customer',
        edit: (s) => ((s.reviews as Json[])[0].customer = 'omar'),
      },
      {
        name: 'a select field without options',
        path: 'stores[0].products[0].fields[1].options',
        edit: (s) => delete ((s.products[0].fields as Json[])[1] as Json).options,
      },
      {
        name: 'a PayPal method without e-mail or link',
        path: 'stores[0].payment_methods.paypal',
        edit: (s) => (s.payment_methods.paypal = {}),
      },
      {
        name: 'a license status outside the enum',
        path: 'stores[0].licenses[0].status',
        edit: (s) => (s.licenses[0].status = 'paused'),
      },
      {
        name: 'a key the format does not have',
        path: 'stores[0].colour',
        message: 'stores[0].colour: is not allowed',
        edit: (s) => (s.colour = 'blue'),
      },
    ];

    for (const c of cases) {
      it(`refuses ${c.name}, naming ${c.path}, and writes nothing`, async () => {
        const fixture = await threeProducts();
        c.edit(firstStore(fixture));
        const error = await expectRefused(deps, fixture, c.path);
        if (c.message) expect(error.message).to.equal(c.message);
        const counts = await rowCounts(deps);
        expect(
          Object.values(counts).every((n) => n === 0),
          JSON.stringify(counts),
        ).to.equal(true);
      });
    }

    it('refuses a fixture whose domain belongs to another store and rolls back every row', async () => {
      await createStore({ domains: ['acme.localhost'] });
      const before = await snapshot(deps);
      const error = await expectRefused(deps, await contractExample(), 'stores[0].domains[0]');
      expect(error.message).to.equal(
        'stores[0].domains[0]: domain "acme.localhost" already belongs to another store',
      );
      expect(await snapshot(deps)).to.deep.equal(before);
    });
  });

  describe('the CLI', function () {
    this.timeout(60_000);
    let dir: string;

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'seed-test-'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('prints only the manifest on stdout and exits 0, even with info logging on', async () => {
      const result = await runCli(['test/fixtures/contract-example.json'], { LOG_LEVEL: 'info' });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout.endsWith('\n')).to.equal(true);
      expect(result.stdout.trim().split('\n')).to.have.length(1);
      const printed = JSON.parse(result.stdout) as Manifest;

      const store = await Store.query().findOne({ fixture_ref: 'acme' });
      expect(printed.stores.acme.id).to.equal(store?.id);
      expect(printed).to.deep.equal(await loadFixture(deps, await contractExample()));
      expect(
        (await findCustomerToken(Customer.knex(), printed.stores.acme.customers.sara.storefront_token))
          ?.customer.id,
      ).to.equal(printed.stores.acme.customers.sara.id);

      const second = await runCli(['test/fixtures/contract-example.json']);
      expect(second.code, second.stderr).to.equal(0);
      expect(second.stdout).to.equal(result.stdout);
    });

    it('exits 1 naming the path of a bad field, with nothing on stdout and nothing written', async () => {
      const fixture = await contractExample();
      firstStore(fixture).products[0].price = '50.001';
      const file = path.join(dir, 'bad-price.json');
      await writeFile(file, JSON.stringify(fixture));

      const result = await runCli([file]);
      expect(result.code).to.equal(1);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.include(
        'stores[0].products[0].price: must be a decimal string with at most two decimals',
      );
      expect(await Store.query().resultSize()).to.equal(0);
    });

    it('exits 1 with a clear message for invalid JSON, a missing file or no argument', async () => {
      const file = path.join(dir, 'broken.json');
      await writeFile(file, '{"stores": [');
      const broken = await runCli([file]);
      expect(broken.code).to.equal(1);
      expect(broken.stderr).to.include(`fixture file ${file} is not valid JSON`);

      const missing = await runCli([path.join(dir, 'absent.json')]);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.include('cannot read fixture file').and.include('ENOENT');

      const none = await runCli([]);
      expect(none.code).to.equal(1);
      expect(none.stderr).to.include('usage: seed FILE');
      expect(broken.stdout + missing.stdout + none.stdout).to.equal('');
    });
  });

  describe('the demo fixture', () => {
    it('loads cleanly, covers every product type and reloads without a change', async () => {
      const demo = await readJson('fixtures/demo.json');
      const manifest = await loadFixture(deps, demo);
      const store = manifest.stores.demo;
      expect(store.embed_key).to.equal('emb_pk_demo_0001');

      const products = await Product.query().where({ store_id: store.id });
      expect(new Set(products.map((p) => p.type))).to.deep.equal(
        new Set(['product', 'code', 'service', 'subscription']),
      );
      expect(products.some((p) => p.license_enabled && p.license_prefix === 'DEMO')).to.equal(true);
      expect(
        await deps.knex('product_codes').where({ product_id: store.products['steam-50'].id }).count('* as n'),
      ).to.deep.equal([{ n: 20 }]);
      expect((await Coupon.query().findById(store.coupons.FREE100))?.amount).to.equal(10_000);
      expect(
        await deps.knex('store_payment_methods').where({ store_id: store.id }).count('* as n'),
      ).to.deep.equal([{ n: 7 }]);
      expect((await findMerchantToken(Customer.knex(), 'mt_demo_secret_0001'))?.store.id).to.equal(store.id);
      const demoCustomer = await findCustomerToken(Customer.knex(), store.customers.demo.storefront_token);
      expect(demoCustomer?.customer).to.include({ country_code: '966', phone: '500000001' });

      const before = await snapshot(deps);
      expect(await loadFixture(deps, await readJson('fixtures/demo.json'))).to.deep.equal(manifest);
      expect(await snapshot(deps)).to.deep.equal(before);
    });
  });
});
