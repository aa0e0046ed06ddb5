import crypto from 'node:crypto';
import {
  Category,
  Coupon,
  CustomField,
  Product,
  ProductCode,
  ProductFivemCommand,
  ProductPlan,
} from '../../../db/models';
import { ProductFixture } from './fixture-schema';
import { same, changes, isEmpty, jsonb, minor, optionalMinor } from './compare';
import { StoreSettingsSeeder } from './store-seeder';

/** The second layer of a store's seeding: categories, products (plans, codes, FiveM commands), coupons. */
export abstract class CatalogueSeeder extends StoreSettingsSeeder {
  protected readonly categoryIds = new Map<string, number>();
  protected readonly products = new Map<string, { id: number; plans: Map<string, number> }>();

  protected async syncCategories(): Promise<void> {
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

  protected async syncProduct(f: ProductFixture): Promise<void> {
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

  protected hasLicenseSecret(sealed: string | null | undefined): boolean {
    if (!sealed) return false;
    try {
      this.deps.cipher.decrypt(sealed);
      return true;
    } catch {
      return false;
    }
  }

  protected async syncProductCategories(productId: number, f: ProductFixture): Promise<void> {
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

  protected async syncPlans(productId: number, f: ProductFixture): Promise<Map<string, number>> {
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
  protected async syncCodes(productId: number, codes: string[]): Promise<void> {
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
  protected async syncFivemCommands(productId: number, f: ProductFixture): Promise<void> {
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

  protected async syncCoupons(): Promise<Record<string, number>> {
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

  protected async syncCouponProducts(couponId: number, wanted: number[]): Promise<void> {
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
}
