import { STANDARD_VAT_RATE_BP } from '../invoices/amounts';
import { enableSimulation } from '../einvoicing/settings';
import { writeFraudSettings } from '../fraud/settings';
import type { TxDeps } from '../../unit-of-work';
import { noteCatalogChangedEverywhereOn } from '../catalogue/cache';
import { noteLicensesChangedOn } from '../licenses/cache';
import { syncFixtureOwner } from '../staff/accounts';
import { newTxtValue } from '../stores/domains';
import { slugFromHandle } from '../catalogue/store-schema';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { raw } from 'objection';
import {
  BlockedPhone,
  Category,
  Coupon,
  Customer,
  CustomerAccessToken,
  CustomField,
  FivemServer,
  License,
  MerchantToken,
  PAYMENT_METHOD_IDS,
  Product,
  ProductCode,
  ProductFivemCommand,
  ProductPlan,
  Review,
  Store,
  StoreDomain,
  StorePaymentMethod,
} from '../../../db/models';
import type { Cipher } from '../../crypto';
import { randomToken, sha256 } from '../../crypto';
import type { Logger } from '../../logger';
import { parseMoney } from '../../money';
import { revokePhoneTokens, STOREFRONT_ABILITIES, TOKEN_TTL_SECONDS } from '../tokens';
import {
  CREDENTIAL_KEYS,
  CustomerFixture,
  Fixture,
  FixtureError,
  PaymentMethodsFixture,
  ProductFixture,
  StoreFixture,
  validateFixture,
} from './fixture-schema';

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

// ---------------------------------------------------------------- row comparison

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Deep equality as the database sees it: dates by instant, missing and null alike, jsonb key order ignored. */
function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => same(a[key], b[key]));
  }
  return (a ?? null) === (b ?? null);
}

/** The columns of `desired` whose value differs from the stored row. */
function changes<T extends object>(existing: T, desired: Partial<T>): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(desired) as (keyof T)[]) {
    if (!same(existing[key], desired[key])) out[key] = desired[key];
  }
  return out;
}

const isEmpty = (patch: object): boolean => Object.keys(patch).length === 0;

/** Objection leaves arrays as they are (Postgres arrays); a jsonb array has to be sent as JSON text. */
const jsonb = (value: unknown) => raw('?::jsonb', [JSON.stringify(value)]);

/** A validated decimal in minor units of `currency` (ISO 4217 decimals); no currency: basis points. */
const minor = (value: string, currency?: string): number => parseMoney(value, currency) ?? 0;
const optionalMinor = (value: string | null | undefined, currency: string): number | null =>
  value === null || value === undefined ? null : minor(value, currency);

// ---------------------------------------------------------------- one store

class StoreSeeder {
  private storeId = 0;
  private readonly categoryIds = new Map<string, number>();
  private readonly products = new Map<string, { id: number; plans: Map<string, number> }>();
  private readonly customerIds = new Map<string, number>();

  constructor(
    private readonly trx: Knex.Transaction,
    private readonly deps: SeedDeps,
    private readonly fixture: StoreFixture,
    private readonly at: string,
  ) {}

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

  /** A unique value that already belongs to another store is a conflict the fixture cannot resolve. */
  private conflict(path: string, what: string): FixtureError {
    return new FixtureError(`${this.at}.${path}`, `${what} already belongs to another store`);
  }

  private async upsertStore(): Promise<Store> {
    const f = this.fixture;
    const existing = await Store.query(this.trx).findOne({ fixture_ref: f.ref });
    // The embed key comes from the fixture, else stays what an earlier load generated.
    const embedKey = f.embed_key ?? existing?.embed_key ?? randomToken(24, 'emb_pk_');
    if (f.embed_key !== undefined) {
      const holder = await Store.query(this.trx).findOne({ embed_key: f.embed_key });
      if (holder && holder.id !== existing?.id) throw this.conflict('embed_key', 'this embed key');
    }
    const slug = await this.storeSlug(f, existing);
    const desired: Partial<Store> = {
      slug,
      page_description: f.description || null,
      logo_url: f.logo_url || null,
      accent_color: f.accent_color || null,
      policies: f.policies || null,
      name: f.name,
      currency: f.currency,
      plan: f.plan,
      ...taxSetting(f),
      legal_name: f.legal_name ?? null,
      vat_number: f.vat_number ?? null,
      vat_address: f.address ?? null,
      embed_key: embedKey,
      allowed_origins: f.allowed_origins,
      allowed_country_codes: f.allowed_country_codes,
      manual_payment_days: f.manual_payment_days,
      ...(f.settings?.abandoned_checkout_minutes !== undefined
        ? { abandoned_checkout_minutes: f.settings.abandoned_checkout_minutes }
        : {}),
      ...(f.settings?.abandoned_checkout_coupon !== undefined
        ? { abandoned_checkout_coupon: f.settings.abandoned_checkout_coupon }
        : {}),
    };
    if (!existing) return Store.query(this.trx).insertAndFetch({ ...desired, fixture_ref: f.ref });
    const patch = changes(existing, desired);
    return isEmpty(patch) ? existing : existing.$query(this.trx).patchAndFetch(patch);
  }

  /**
   * The store's slug: the fixture's `slug` (refused when another store holds it), else the ref made an
   * address; when another store holds that one, the store keeps the slug it has, or a new store gets the
   * first free `<slug>-2`, `<slug>-3`... (a default must not fail a load).
   */
  private async storeSlug(f: StoreFixture, existing: Store | undefined): Promise<string> {
    const taken = async (slug: string) => {
      const holder = await Store.query(this.trx).findOne({ slug });
      return holder !== undefined && holder.id !== existing?.id;
    };
    if (f.slug !== undefined) {
      if (await taken(f.slug)) throw this.conflict('slug', `the slug "${f.slug}"`);
      return f.slug;
    }
    const base = slugFromHandle(f.ref);
    if (!(await taken(base))) return base;
    if (existing) return existing.slug;
    for (let n = 2; ; n++) {
      const candidate = `${base.slice(0, 60 - String(n).length)}-${n}`;
      if (!(await taken(candidate))) return candidate;
    }
  }

  private async syncDomains(): Promise<void> {
    for (const [i, domain] of this.fixture.domains.entries()) {
      const existing = await StoreDomain.query(this.trx).findOne({ domain });
      if (existing && existing.store_id !== this.storeId)
        throw this.conflict(`domains[${i}]`, `domain "${domain}"`);
      // Fixture domains count as verified (docs/merchant.md, "Store domains"): the operator loads them.
      if (!existing) {
        await StoreDomain.query(this.trx).insert({
          store_id: this.storeId,
          domain,
          txt_value: newTxtValue(),
          verified_at: new Date(),
        });
      } else if (!existing.verified_at) {
        await StoreDomain.query(this.trx).findById(existing.id).patch({ verified_at: new Date() });
      }
    }
  }

  private async syncPaymentMethods(): Promise<void> {
    const methods: PaymentMethodsFixture = this.fixture.payment_methods;
    const existing = await StorePaymentMethod.query(this.trx).where({ store_id: this.storeId });
    for (const method of PAYMENT_METHOD_IDS) {
      const f = methods[method];
      if (!f) continue;
      let provider: StorePaymentMethod['provider'];
      let settings: Record<string, string> = {};
      let credentials: Record<string, string> | null = null;
      if (method === 'paypal') {
        const paypal = methods.paypal;
        provider = 'paypal';
        settings = compact({ email: paypal?.email, pay_link: paypal?.pay_link });
      } else if (method === 'bank') {
        const bank = methods.bank;
        provider = 'bank';
        settings = compact({
          bank_name: bank?.bank_name,
          account_name: bank?.account_name,
          account_number: bank?.account_number,
          iban: bank?.iban,
        });
      } else {
        const gateway = methods[method];
        provider = gateway?.provider ?? 'sandbox';
        const given = compact(Object.fromEntries(CREDENTIAL_KEYS.map((key) => [key, gateway?.[key]])));
        credentials = isEmpty(given) ? null : given;
      }
      const desired: Partial<StorePaymentMethod> = {
        provider,
        active: f.active,
        settings,
        min_amount_minor: optionalMinor(f.min_amount, this.fixture.currency),
        max_amount_minor: optionalMinor(f.max_amount, this.fixture.currency),
        position: PAYMENT_METHOD_IDS.indexOf(method),
      };
      const row = existing.find((r) => r.method === method);
      if (!row) {
        await StorePaymentMethod.query(this.trx).insert({
          ...desired,
          store_id: this.storeId,
          method,
          credentials_encrypted: credentials ? this.deps.cipher.encrypt(JSON.stringify(credentials)) : null,
        });
        continue;
      }
      const patch = changes(row, desired);
      // Encryption is randomised, so credentials are compared in the clear and re-sealed only when they differ.
      if (!same(this.openCredentials(row.credentials_encrypted), credentials)) {
        patch.credentials_encrypted = credentials
          ? this.deps.cipher.encrypt(JSON.stringify(credentials))
          : null;
      }
      if (!isEmpty(patch)) await row.$query(this.trx).patch(patch);
    }
  }

  private openCredentials(sealed: string | null): unknown {
    if (!sealed) return null;
    try {
      return JSON.parse(this.deps.cipher.decrypt(sealed));
    } catch {
      // Sealed under another platform secret: unreadable, so the fixture's credentials replace it.
      return undefined;
    }
  }

  private async syncMerchantTokens(): Promise<void> {
    for (const [i, token] of this.fixture.merchant_tokens.entries()) {
      const tokenHash = sha256(token);
      const existing = await MerchantToken.query(this.trx).findOne({ token_hash: tokenHash });
      if (existing && existing.store_id !== this.storeId)
        throw this.conflict(`merchant_tokens[${i}]`, 'this token');
      if (!existing) {
        await MerchantToken.query(this.trx).insert({
          store_id: this.storeId,
          token_hash: tokenHash,
          name: 'fixture',
          scope: 'write',
          last4: token.slice(-4),
        });
      }
    }
  }

  private async syncFivemSecret(): Promise<void> {
    if (this.fixture.fivem_secret === undefined) return;
    const secretHash = sha256(this.fixture.fivem_secret);
    const existing = await FivemServer.query(this.trx).findOne({ secret_hash: secretHash });
    if (existing && existing.store_id !== this.storeId)
      throw this.conflict('fivem_secret', 'this FiveM secret');
    if (!existing)
      await FivemServer.query(this.trx).insert({ store_id: this.storeId, secret_hash: secretHash });
  }

  /** The store's fraud settings (docs/fraud.md), the keys the fixture gives (shared/services/fraud). */
  private async syncFraudSettings(): Promise<void> {
    if (this.fixture.settings === undefined) return;
    await writeFraudSettings(
      this.trx,
      this.storeId,
      this.fixture.currency,
      this.fixture.settings,
      'settings',
    );
  }

  private async syncBlockedPhones(): Promise<void> {
    for (const f of this.fixture.blocked_phones) {
      const e164 = f.country_code + f.phone;
      const desired: Partial<BlockedPhone> = {
        country_code: f.country_code,
        phone: f.phone,
        reason: f.reason ?? null,
      };
      const existing = await BlockedPhone.query(this.trx).findOne({ store_id: this.storeId, e164 });
      if (!existing) {
        await BlockedPhone.query(this.trx).insert({ ...desired, store_id: this.storeId, e164 });
        await revokePhoneTokens(this.trx, this.storeId, e164);
        continue;
      }
      const patch = changes(existing, desired);
      if (!isEmpty(patch)) await existing.$query(this.trx).patch(patch);
    }
  }

  private async syncCategories(): Promise<void> {
    for (const [i, f] of this.fixture.categories.entries()) {
      const desired: Partial<Category> = {
        name: f.name,
        name_ar: f.name_ar || null,
        description: f.description || null,
        description_ar: f.description_ar || null,
        position: i,
        fixture_ref: f.ref,
      };
      const existing = await Category.query(this.trx).findOne({ store_id: this.storeId, slug: f.slug });
      let id: number;
      if (!existing) {
        id = (await Category.query(this.trx).insert({ ...desired, store_id: this.storeId, slug: f.slug })).id;
      } else {
        id = existing.id;
        const patch = changes(existing, desired);
        if (!isEmpty(patch)) await existing.$query(this.trx).patch(patch);
      }
      this.categoryIds.set(f.ref, id);
    }
  }

  private async syncProduct(f: ProductFixture): Promise<void> {
    const fields: CustomField[] = f.fields.map((field) => ({
      type: field.type,
      label: field.label,
      ...(field.label_ar ? { label_ar: field.label_ar } : {}),
      required: field.required,
      ...(field.options
        ? {
            options: field.options.map((option) => ({
              label: option.label,
              ...(option.label_ar ? { label_ar: option.label_ar } : {}),
              price_minor: minor(option.price, this.fixture.currency),
            })),
          }
        : {}),
    }));
    const license = f.license ?? null;
    const desired: Partial<Product> = {
      name: f.name,
      name_ar: f.name_ar || null,
      description: f.description ?? null,
      description_ar: f.description_ar || null,
      type: f.type,
      price_minor: minor(f.price, this.fixture.currency),
      sale_price_minor: optionalMinor(f.sale_price, this.fixture.currency),
      active: f.active,
      stock: f.stock ?? null,
      max_per_order: f.max_per_order,
      download_limit: f.download_limit,
      image_url: f.image_url ?? null,
      license_enabled: license !== null,
      license_prefix: license?.prefix ?? null,
      license_lock_type: license?.lock_type ?? null,
      license_max_activations: license?.max_activations ?? 0,
      license_encrypt: license?.encrypt ?? false,
      fixture_ref: f.ref,
    };
    const existing = await Product.query(this.trx).findOne({ store_id: this.storeId, slug: f.slug });
    // The response-encryption key is made once and kept, so licensed software keeps decrypting after a reload.
    const needsSecret =
      license?.encrypt === true && !this.hasLicenseSecret(existing?.license_secret_encrypted);
    const secret = needsSecret
      ? this.deps.cipher.encrypt(crypto.randomBytes(32).toString('base64'))
      : undefined;

    let productId: number;
    if (!existing) {
      const inserted = await Product.query(this.trx).insert({
        ...desired,
        store_id: this.storeId,
        slug: f.slug,
        fields: jsonb(fields),
        license_secret_encrypted: secret ?? null,
      });
      productId = inserted.id;
    } else {
      productId = existing.id;
      const patch = changes(existing, desired);
      if (secret !== undefined) patch.license_secret_encrypted = secret;
      const fieldsChanged = !same(existing.fields, fields);
      if (!isEmpty(patch) || fieldsChanged) {
        await Product.query(this.trx)
          .patch({ ...patch, ...(fieldsChanged ? { fields: jsonb(fields) } : {}) })
          .where('id', productId);
      }
    }

    await this.syncProductCategories(productId, f);
    const plans = await this.syncPlans(productId, f);
    await this.syncCodes(productId, f.codes);
    await this.syncFivemCommands(productId, f);
    this.products.set(f.ref, { id: productId, plans });
  }

  private hasLicenseSecret(sealed: string | null | undefined): boolean {
    if (!sealed) return false;
    try {
      this.deps.cipher.decrypt(sealed);
      return true;
    } catch {
      return false;
    }
  }

  private async syncProductCategories(productId: number, f: ProductFixture): Promise<void> {
    const wanted = f.categories.map((ref) => this.categoryIds.get(ref) ?? 0);
    const rows: { category_id: number }[] = await this.trx('product_categories')
      .where({ product_id: productId })
      .select('category_id');
    const current = rows.map((r) => r.category_id);
    const removed = current.filter((id) => !wanted.includes(id));
    const added = wanted.filter((id) => !current.includes(id));
    if (removed.length > 0) {
      await this.trx('product_categories')
        .where({ product_id: productId })
        .whereIn('category_id', removed)
        .delete();
    }
    if (added.length > 0) {
      await this.trx('product_categories').insert(
        added.map((category_id) => ({ product_id: productId, category_id })),
      );
    }
  }

  private async syncPlans(productId: number, f: ProductFixture): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (const [i, plan] of f.plans.entries()) {
      const desired: Partial<ProductPlan> = {
        name: plan.name,
        price_minor: minor(plan.price, this.fixture.currency),
        duration: plan.duration,
        active: plan.active,
        position: i,
      };
      const existing = await ProductPlan.query(this.trx).findOne({
        product_id: productId,
        fixture_ref: plan.ref,
      });
      if (!existing) {
        const inserted = await ProductPlan.query(this.trx).insert({
          ...desired,
          product_id: productId,
          fixture_ref: plan.ref,
        });
        ids.set(plan.ref, inserted.id);
        continue;
      }
      const patch = changes(existing, desired);
      if (!isEmpty(patch)) await existing.$query(this.trx).patch(patch);
      ids.set(plan.ref, existing.id);
    }
    return ids;
  }

  /** New keys are added; keys already present (available, reserved or sold) are never touched. */
  private async syncCodes(productId: number, codes: string[]): Promise<void> {
    if (codes.length === 0) return;
    const rows = await ProductCode.query(this.trx)
      .where({ product_id: productId })
      .whereIn('code', codes)
      .select('code');
    const present = new Set(rows.map((r) => r.code));
    const fresh = codes.filter((code) => !present.has(code));
    for (let i = 0; i < fresh.length; i += 500) {
      await this.trx('product_codes').insert(
        fresh.slice(i, i + 500).map((code) => ({ product_id: productId, code })),
      );
    }
  }

  /** The command set follows the fixture exactly; an unchanged set keeps its rows. */
  private async syncFivemCommands(productId: number, f: ProductFixture): Promise<void> {
    const current = await ProductFivemCommand.query(this.trx)
      .where({ product_id: productId })
      .orderBy('position');
    const wanted = f.fivem_commands.map((c, position) => ({
      command: c.command,
      require_online: c.require_online,
      position,
      run_on: c.run_on,
      delay_seconds: c.delay_seconds,
      inventory_slots: c.inventory_slots,
    }));
    const unchanged = same(
      current.map((c) => ({
        command: c.command,
        require_online: c.require_online,
        position: c.position,
        run_on: c.run_on,
        delay_seconds: c.delay_seconds,
        inventory_slots: c.inventory_slots,
      })),
      wanted,
    );
    if (unchanged) return;
    await ProductFivemCommand.query(this.trx).delete().where({ product_id: productId });
    if (wanted.length > 0) {
      await this.trx('product_fivem_commands').insert(wanted.map((c) => ({ ...c, product_id: productId })));
    }
  }

  private async syncCoupons(): Promise<Record<string, number>> {
    const ids: Record<string, number> = {};
    for (const f of this.fixture.coupons) {
      const desired: Partial<Coupon> = {
        code: f.code,
        type: f.type,
        // Percent "10" scales by 100 (basis points); money "5.00" by the store currency's minor unit.
        amount: f.type === 'percentage' ? minor(f.amount) : minor(f.amount, this.fixture.currency),
        active: f.active,
        max_uses: f.max_uses ?? null,
        min_order_minor: optionalMinor(f.min_order, this.fixture.currency),
        payment_restrictions: f.payment_restrictions,
        starts_at: f.starts_at ?? null,
        expires_at: f.expires_at ?? null,
      };
      const existing = await Coupon.query(this.trx)
        .where({ store_id: this.storeId })
        .whereRaw('lower(code) = lower(?)', [f.code])
        .first();
      let id: number;
      if (!existing) {
        id = (await Coupon.query(this.trx).insert({ ...desired, store_id: this.storeId })).id;
      } else {
        id = existing.id;
        const patch = changes(existing, desired);
        if (!isEmpty(patch)) await existing.$query(this.trx).patch(patch);
      }
      await this.syncCouponProducts(
        id,
        f.products.map((ref) => this.products.get(ref)?.id ?? 0),
      );
      ids[f.code] = id;
    }
    return ids;
  }

  private async syncCouponProducts(couponId: number, wanted: number[]): Promise<void> {
    const rows: { product_id: number }[] = await this.trx('coupon_products')
      .where({ coupon_id: couponId })
      .select('product_id');
    const current = rows.map((r) => r.product_id);
    const removed = current.filter((id) => !wanted.includes(id));
    const added = wanted.filter((id) => !current.includes(id));
    if (removed.length > 0) {
      await this.trx('coupon_products')
        .where({ coupon_id: couponId })
        .whereIn('product_id', removed)
        .delete();
    }
    if (added.length > 0) {
      await this.trx('coupon_products').insert(
        added.map((product_id) => ({ coupon_id: couponId, product_id })),
      );
    }
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

/** Drops keys whose value is missing, so settings and credentials hold only what the fixture gave. */
function compact(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * A store with a VAT number sells at VAT-inclusive prices: 15% unless the fixture names another rate, so
 * the spec's amounts stay as the fixture wrote them and each order records its VAT split.
 */
function taxSetting(f: StoreFixture): Pick<Store, 'tax_mode' | 'tax_rate_bp'> {
  if (f.vat_number === undefined) return { tax_mode: f.tax_mode, tax_rate_bp: minor(f.tax_rate) };
  const rate = minor(f.tax_rate);
  return { tax_mode: 'inclusive', tax_rate_bp: rate > 0 ? rate : STANDARD_VAT_RATE_BP };
}
