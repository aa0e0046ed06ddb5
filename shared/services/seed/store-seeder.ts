import { writeFraudSettings } from '../fraud/settings';
import { newTxtValue } from '../stores/domains';
import { slugFromHandle } from '../catalogue/store-schema';
import type { Knex } from 'knex';
import {
  BlockedPhone,
  FivemServer,
  MerchantToken,
  PAYMENT_METHOD_IDS,
  Store,
  StoreDomain,
  StorePaymentMethod,
} from '../../../db/models';
import { randomToken, sha256 } from '../../crypto';
import { revokePhoneTokens } from '../tokens';
import { CREDENTIAL_KEYS, FixtureError, PaymentMethodsFixture, StoreFixture } from './fixture-schema';
import type { SeedDeps } from './load-fixture';
import { same, changes, isEmpty, optionalMinor, compact, taxSetting } from './compare';

/**
 * The first layer of a store's seeding: the store row and what configures it (domains, payment methods,
 * merchant tokens, the FiveM secret, fraud settings, blocked phones). CatalogueSeeder and StoreSeeder
 * (load-fixture.ts) add the catalogue, then the customers and licences, on the same transaction.
 */
export abstract class StoreSettingsSeeder {
  protected storeId = 0;

  constructor(
    protected readonly trx: Knex.Transaction,
    protected readonly deps: SeedDeps,
    protected readonly fixture: StoreFixture,
    protected readonly at: string,
  ) {}

  /** A unique value that already belongs to another store is a conflict the fixture cannot resolve. */
  protected conflict(path: string, what: string): FixtureError {
    return new FixtureError(`${this.at}.${path}`, `${what} already belongs to another store`);
  }

  protected async upsertStore(): Promise<Store> {
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
  protected async storeSlug(f: StoreFixture, existing: Store | undefined): Promise<string> {
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

  protected async syncDomains(): Promise<void> {
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

  protected async syncPaymentMethods(): Promise<void> {
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

  protected openCredentials(sealed: string | null): unknown {
    if (!sealed) return null;
    try {
      return JSON.parse(this.deps.cipher.decrypt(sealed));
    } catch {
      // Sealed under another platform secret: unreadable, so the fixture's credentials replace it.
      return undefined;
    }
  }

  protected async syncMerchantTokens(): Promise<void> {
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

  protected async syncFivemSecret(): Promise<void> {
    if (this.fixture.fivem_secret === undefined) return;
    const secretHash = sha256(this.fixture.fivem_secret);
    const existing = await FivemServer.query(this.trx).findOne({ secret_hash: secretHash });
    if (existing && existing.store_id !== this.storeId)
      throw this.conflict('fivem_secret', 'this FiveM secret');
    if (!existing)
      await FivemServer.query(this.trx).insert({ store_id: this.storeId, secret_hash: secretHash });
  }

  /** The store's fraud settings (docs/fraud.md), the keys the fixture gives (shared/services/fraud). */
  protected async syncFraudSettings(): Promise<void> {
    if (this.fixture.settings === undefined) return;
    await writeFraudSettings(
      this.trx,
      this.storeId,
      this.fixture.currency,
      this.fixture.settings,
      'settings',
    );
  }

  protected async syncBlockedPhones(): Promise<void> {
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
}
