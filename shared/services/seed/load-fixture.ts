import { enableSimulation } from '../einvoicing/settings';
import type { TxDeps } from '../../unit-of-work';
import { noteCatalogChangedEverywhereOn } from '../catalogue/cache';
import { noteLicensesChangedOn } from '../licenses/cache';
import { syncFixtureOwner } from '../staff/accounts';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { Customer, CustomerAccessToken, License, Review } from '../../../db/models';
import type { Cipher } from '../../crypto';
import { sha256 } from '../../crypto';
import type { Logger } from '../../logger';
import { STOREFRONT_ABILITIES, TOKEN_TTL_SECONDS } from '../tokens';
import { CustomerFixture, Fixture, validateFixture } from './fixture-schema';
import { changes, isEmpty } from './compare';
import { CatalogueSeeder } from './catalogue-seeder';

/** the operator contract (docs/operations.md). */
export interface StoreManifest {
  id: number;
  embed_key: string;
  categories: Record<string, number>;
  products: Record<string, { id: number; plans: Record<string, number> }>;
  coupons: Record<string, number>;
  customers: Record<string, { id: number; storefront_token: string }>;
  licenses: Record<string, { id: number; key: string }>;
}

export interface Manifest {
  stores: Record<string, StoreManifest>;
}

export interface SeedDeps extends TxDeps {
  knex: Knex;
  cipher: Cipher;
  appSecret: string;
  logger: Logger;
}

/** Serialises concurrent seeds (two start scripts at once) so their look-then-insert steps cannot interleave. */
const SEED_LOCK = 'commerce-platform:seed';

/**
 * Loads a fixture (docs/operations.md) and returns its manifest (section 5). Everything happens in one
 * transaction, so a refused fixture or a conflict half-way writes nothing.
 *
 * Idempotent by construction: every row is found by its natural key and written only when a column
 * differs, so a second load of the same file changes no row (not even updated_at) and returns the same
 * manifest. The one exception is a seeded storefront token whose expiry has passed, which is extended.
 * Rows the fixture no longer lists are left in place (orders may point at them), except the link sets
 * (product categories, coupon products, FiveM commands), which follow the fixture exactly.
 */
export async function loadFixture(deps: SeedDeps, input: unknown): Promise<Manifest> {
  const fixture: Fixture = validateFixture(input);
  const manifest = await deps.tx(async (uow) => {
    const { trx } = uow;
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [SEED_LOCK]);
    const out: Manifest = { stores: {} };
    for (const [i, store] of fixture.stores.entries()) {
      out.stores[store.ref] = await new StoreSeeder(trx, deps, store, `stores[${i}]`).run();
    }
    // Once committed: every web process's store, product and license caches read afresh (shared/cache).
    noteCatalogChangedEverywhereOn(uow);
    noteLicensesChangedOn(uow);
    return out;
  });
  deps.logger.info({ stores: Object.keys(manifest.stores) }, 'fixture loaded');
  return manifest;
}

/** The storefront token printed for a seeded customer: the same on every load, and only its hash is stored. */
export function seededStorefrontToken(appSecret: string, customerId: number): string {
  const mac = crypto.createHmac('sha256', appSecret).update(`seed-storefront-token:${customerId}`, 'utf8');
  return 'cst_' + mac.digest('base64url');
}

// ---------------------------------------------------------------- one store

class StoreSeeder extends CatalogueSeeder {
  private readonly customerIds = new Map<string, number>();

  async run(): Promise<StoreManifest> {
    const store = await this.upsertStore();
    this.storeId = store.id;
    await this.syncDomains();
    await this.syncPaymentMethods();
    await this.syncMerchantTokens();
    await this.syncFivemSecret();
    await this.syncBlockedPhones();
    if (this.fixture.einvoicing === 'simulation') {
      await enableSimulation(this.trx, this.deps.cipher, this.storeId, new Date());
    }
    await this.syncFraudSettings();
    if (this.fixture.owner) await syncFixtureOwner(this.trx, this.storeId, this.fixture.owner);
    await this.syncCategories();
    for (const product of this.fixture.products) await this.syncProduct(product);
    const coupons = await this.syncCoupons();
    const customers: StoreManifest['customers'] = {};
    for (const customer of this.fixture.customers) {
      customers[customer.ref] = await this.syncCustomer(customer);
    }
    await this.syncReviews();
    const licenses = await this.syncLicenses();

    const products: StoreManifest['products'] = {};
    for (const [ref, product] of this.products) {
      products[ref] = { id: product.id, plans: Object.fromEntries(product.plans) };
    }
    return {
      id: store.id,
      embed_key: store.embed_key,
      categories: Object.fromEntries(this.categoryIds),
      products,
      coupons,
      customers,
      licenses,
    };
  }

  private async syncCustomer(f: CustomerFixture): Promise<{ id: number; storefront_token: string }> {
    const e164 = f.country_code + f.phone;
    const desired: Partial<Customer> = {
      first_name: f.firstName,
      last_name: f.lastName,
      email: f.email,
      country_code: f.country_code,
      phone: f.phone,
      fixture_ref: f.ref,
    };
    const existing = await Customer.query(this.trx).findOne({ store_id: this.storeId, e164 });
    let id: number;
    if (!existing) {
      id = (await Customer.query(this.trx).insert({ ...desired, store_id: this.storeId, e164 })).id;
    } else {
      id = existing.id;
      const patch = changes(existing, desired);
      if (!isEmpty(patch)) await existing.$query(this.trx).patch(patch);
    }
    this.customerIds.set(f.ref, id);
    return { id, storefront_token: await this.syncStorefrontToken(id) };
  }

  private async syncStorefrontToken(customerId: number): Promise<string> {
    const token = seededStorefrontToken(this.deps.appSecret, customerId);
    const tokenHash = sha256(token);
    const freshExpiry = new Date(Date.now() + TOKEN_TTL_SECONDS.storefront * 1000);
    const desired: Partial<CustomerAccessToken> = {
      customer_id: customerId,
      store_id: this.storeId,
      abilities: [...STOREFRONT_ABILITIES],
      name: 'storefront',
      revoked_at: null,
    };
    const existing = await CustomerAccessToken.query(this.trx).findOne({ token_hash: tokenHash });
    if (!existing) {
      await CustomerAccessToken.query(this.trx).insert({
        ...desired,
        token_hash: tokenHash,
        expires_at: freshExpiry,
      });
      return token;
    }
    // The manifest promises a usable token, so a seeded token that has lapsed or was revoked is revived.
    const patch = changes(existing, desired);
    if (existing.expires_at.getTime() <= Date.now()) patch.expires_at = freshExpiry;
    if (!isEmpty(patch)) await existing.$query(this.trx).patch(patch);
    return token;
  }

  private async syncReviews(): Promise<void> {
    for (const f of this.fixture.reviews) {
      const match = {
        store_id: this.storeId,
        product_id: f.product != null ? (this.products.get(f.product)?.id ?? null) : null,
        customer_id: f.customer != null ? (this.customerIds.get(f.customer) ?? null) : null,
        rating: f.rating,
        comment: f.comment ?? null,
      };
      const existing = await Review.query(this.trx).where(match).orderBy('id').first();
      if (!existing) {
        await Review.query(this.trx).insert({ ...match, published: f.published });
      } else if (existing.published !== f.published) {
        await existing.$query(this.trx).patch({ published: f.published });
      }
    }
  }

  private async syncLicenses(): Promise<StoreManifest['licenses']> {
    const out: StoreManifest['licenses'] = {};
    for (const [i, f] of this.fixture.licenses.entries()) {
      const product = this.products.get(f.product);
      const settings = this.fixture.products.find((p) => p.ref === f.product)?.license ?? null;
      const desired: Partial<License> = {
        store_id: this.storeId,
        product_id: product?.id ?? 0,
        plan_id: f.plan != null ? (product?.plans.get(f.plan) ?? null) : null,
        customer_id: f.customer != null ? (this.customerIds.get(f.customer) ?? null) : null,
        status: f.status,
        lock_type: settings?.lock_type ?? 'none',
        max_activations: settings?.max_activations ?? 0,
        starts_at: f.starts_at ?? null,
        expires_at: f.expires_at ?? null,
        metadata: f.metadata ?? null,
        fixture_ref: f.ref,
      };
      const existing = await License.query(this.trx).findOne({ key: f.key });
      if (existing && existing.store_id !== this.storeId)
        throw this.conflict(`licenses[${i}].key`, 'this license key');
      let id: number;
      if (!existing) {
        id = (await License.query(this.trx).insert({ ...desired, key: f.key })).id;
      } else {
        id = existing.id;
        const patch = changes(existing, desired);
        if (!isEmpty(patch)) await existing.$query(this.trx).patch(patch);
      }
      out[f.ref] = { id, key: f.key };
    }
    return out;
  }
}
