import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { CustomField } from '../../../db/models';
import { ConflictError, FieldErrors, messagesOf, NotFoundError, ValidationError } from '../../errors';
import { formatMoney, parseMoney, precisionMessage } from '../../money';
import type { TxDeps } from '../../unit-of-work';
import { noteStockChangedOn, noteStoreContentChangedOn } from './cache';
import type {
  FieldInput,
  FivemCommandInput,
  LicenseInput,
  PlanInput,
  ProductInput,
  ProductPatch,
} from './schema';
import { noteLicenseProductChangedOn } from '../licenses/cache';
import type { ProductSettingsDeps } from '../licenses/product-settings';
import { type Actor, diff, recordAudit, SECRET } from '../audit';
import { PRODUCT_NOT_FOUND, productDetail } from './read';
import { announcePlanPrices, PlanPriceChange } from '../subscriptions/terms';

/**
 * Products written through the Merchant API: create, update (with an optional version check), take off
 * sale. Each write is one unit of work (`deps.tx`) on the locked product row, with its audit row; it
 * bumps, after its commit, the counters of what it changed: the store's product answers, the product's
 * stock, its license settings (docs/caching.md).
 *
 * Concurrency: an update locks the row (`FOR UPDATE`) and merges the request into what is stored then, so
 * two updates of different keys both land. Two updates of the same key: the later commit wins, unless the
 * client sent `If-Match: <version>`, in which case a stale version is refused (409) and nothing is written.
 */

/** Postgres's unique-violation code: a slug taken between our check and our insert. */
const UNIQUE_VIOLATION = '23505';

type Row = Record<string, unknown> & {
  id: number;
  store_id: number;
  type: ProductInput['type'];
  version: number;
  price_minor: string | number;
  sale_price_minor: string | number | null;
  license_secret_encrypted: string | null;
};

/** Amounts in the store's currency, with its own decimals (ISO 4217); the schema checked their form. */
const minor = (value: string, currency: string): number => parseMoney(value, currency) ?? 0;
const optionalMinor = (value: string | null | undefined, currency: string): number | null =>
  value === null || value === undefined ? null : minor(value, currency);

function storedFields(fields: FieldInput[], currency: string): CustomField[] {
  return fields.map((field) => ({
    type: field.type,
    label: field.label,
    ...(field.label_ar ? { label_ar: field.label_ar } : {}),
    required: field.required,
    ...(field.options
      ? {
          options: field.options.map((o) => ({
            label: o.label,
            ...(o.label_ar ? { label_ar: o.label_ar } : {}),
            price_minor: minor(o.price, currency),
          })),
        }
      : {}),
  }));
}

/** The product's keys as they are stored now, in the API's terms (for merging and for the audit). */
async function currentKeys(trx: Knex, row: Row, currency: string): Promise<Omit<ProductInput, 'codes'>> {
  // One after another: they share the transaction's connection.
  const categories = await trx('product_categories')
    .where('product_id', row.id)
    .orderBy('category_id')
    .pluck('category_id');
  const plans = await trx('product_plans').where('product_id', row.id).orderBy(['position', 'id']);
  const commands = await trx('product_fivem_commands')
    .where('product_id', row.id)
    .orderBy(['position', 'id']);
  const fields = (Array.isArray(row.fields) ? row.fields : []) as CustomField[];
  return {
    name: String(row.name),
    name_ar: (row.name_ar as string | null) ?? null,
    slug: String(row.slug),
    type: row.type,
    description: (row.description as string | null) ?? null,
    description_ar: (row.description_ar as string | null) ?? null,
    image_url: (row.image_url as string | null) ?? null,
    price: formatMoney(Number(row.price_minor), currency),
    sale_price: row.sale_price_minor == null ? null : formatMoney(Number(row.sale_price_minor), currency),
    active: Boolean(row.active),
    stock: row.stock == null ? null : Number(row.stock),
    max_per_order: Number(row.max_per_order ?? 10),
    download_limit: Number(row.download_limit ?? 5),
    categories: categories.map(Number),
    fields: fields.map((f) => ({
      type: f.type,
      label: f.label,
      ...(f.label_ar ? { label_ar: f.label_ar } : {}),
      required: f.required,
      ...(f.options
        ? {
            options: f.options.map((o) => ({
              label: o.label,
              ...(o.label_ar ? { label_ar: o.label_ar } : {}),
              price: formatMoney(o.price_minor, currency),
            })),
          }
        : {}),
    })),
    plans: plans.map((p: Record<string, unknown>) => ({
      id: Number(p.id),
      name: String(p.name),
      price: formatMoney(Number(p.price_minor), currency),
      duration: p.duration as PlanInput['duration'],
      active: Boolean(p.active),
    })),
    license: row.license_enabled
      ? {
          prefix: String(row.license_prefix),
          lock_type: (row.license_lock_type as LicenseInput['lock_type']) ?? 'none',
          max_activations: Number(row.license_max_activations),
          encrypt: Boolean(row.license_encrypt),
        }
      : null,
    fivem_commands: commands.map((c: Record<string, unknown>) => ({
      command: String(c.command),
      require_online: Boolean(c.require_online),
      run_on: c.run_on as FivemCommandInput['run_on'],
      delay_seconds: Number(c.delay_seconds),
      inventory_slots: c.inventory_slots == null ? null : Number(c.inventory_slots),
    })),
  };
}

/** Rules across keys and against the store's rows, checked on the merged product; every bad field at once. */
async function checkProduct(
  trx: Knex,
  storeId: number,
  product: Omit<ProductInput, 'codes'> & { codes?: string[] },
  productId: number | null,
  existingPlanIds: number[],
  currency: string,
): Promise<void> {
  const errors: FieldErrors = {};
  // The schema took any currency's form (up to three decimals); the store's currency has its own (ISO 4217).
  const tooPrecise = (value: string | null | undefined): boolean =>
    value !== null && value !== undefined && parseMoney(value, currency) === null;
  const precision = precisionMessage(currency);
  if (tooPrecise(product.price)) messagesOf(errors, 'price').push(precision);
  if (tooPrecise(product.sale_price)) messagesOf(errors, 'sale_price').push(precision);
  product.plans.forEach((plan, i) => {
    if (tooPrecise(plan.price)) messagesOf(errors, `plans.${i}.price`).push(precision);
  });
  product.fields.forEach((field, i) =>
    (field.options ?? []).forEach((option, j) => {
      if (tooPrecise(option.price)) messagesOf(errors, `fields.${i}.options.${j}.price`).push(precision);
    }),
  );
  const price = minor(product.price, currency);
  if (product.sale_price != null && minor(product.sale_price, currency) > price) {
    messagesOf(errors, 'sale_price').push('must not be above price');
  }
  const known = new Set(
    (
      await trx('categories')
        .where('store_id', storeId)
        .whereIn('id', product.categories.length > 0 ? product.categories : [0])
        .pluck('id')
    ).map(Number),
  );
  const seen = new Set<number>();
  product.categories.forEach((id, i) => {
    if (!known.has(id)) messagesOf(errors, `categories.${i}`).push(`no category ${id} in this store`);
    else if (seen.has(id)) messagesOf(errors, `categories.${i}`).push(`category ${id} is listed twice`);
    seen.add(id);
  });
  product.plans.forEach((plan, i) => {
    if (plan.id !== undefined && !existingPlanIds.includes(plan.id)) {
      messagesOf(errors, `plans.${i}.id`).push(`no plan ${plan.id} on this product`);
    }
  });
  const slugHolder = await trx('products')
    .where({ store_id: storeId, slug: product.slug })
    .modify((q) => (productId === null ? q : q.whereNot('id', productId)))
    .first('id');
  if (slugHolder) messagesOf(errors, 'slug').push('is already used by another product of this store');
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

function asUniqueViolation(err: unknown): ValidationError | null {
  const e = err as { code?: string; constraint?: string };
  if (e.code !== UNIQUE_VIOLATION) return null;
  if (e.constraint?.includes('slug')) {
    return ValidationError.field('slug', 'is already used by another product of this store');
  }
  return null;
}

/** The product columns of `product` (license settings included); the key is made by the caller. */
function columns(product: Omit<ProductInput, 'codes'>, currency: string): Record<string, unknown> {
  const license = product.license ?? null;
  return {
    name: product.name,
    name_ar: product.name_ar || null,
    slug: product.slug,
    type: product.type,
    description: product.description ?? null,
    description_ar: product.description_ar || null,
    image_url: product.image_url ?? null,
    price_minor: minor(product.price, currency),
    sale_price_minor: optionalMinor(product.sale_price, currency),
    active: product.active,
    stock: product.stock ?? null,
    max_per_order: product.max_per_order,
    download_limit: product.download_limit,
    fields: JSON.stringify(storedFields(product.fields, currency)),
    license_enabled: license !== null,
    license_prefix: license?.prefix ?? null,
    license_lock_type: license?.lock_type ?? null,
    license_max_activations: license?.max_activations ?? 0,
    license_encrypt: license?.encrypt ?? false,
  };
}

async function writeCategories(trx: Knex, productId: number, ids: number[]): Promise<void> {
  await trx('product_categories').where('product_id', productId).delete();
  if (ids.length > 0) {
    await trx('product_categories').insert(
      ids.map((category_id) => ({ product_id: productId, category_id })),
    );
  }
}

/**
 * Plans named by id are updated in place and keep their id (orders, subscriptions and licenses point at
 * them); plans without an id are added; stored plans the request leaves out are deactivated, not deleted.
 * Answers the plans whose price changed: their subscribers get the new price as new terms (a rise only
 * after notice: subscriptions/terms.ts).
 */
async function writePlans(
  trx: Knex,
  productId: number,
  plans: PlanInput[],
  currency: string,
): Promise<PlanPriceChange[]> {
  const kept: number[] = [];
  const changed: PlanPriceChange[] = [];
  const before = new Map(
    (
      await trx('product_plans')
        .where('product_id', productId)
        .select<{ id: number; price_minor: string | number }[]>('id', 'price_minor')
    ).map((p) => [Number(p.id), Number(p.price_minor)]),
  );
  for (const [position, plan] of plans.entries()) {
    const values = {
      name: plan.name,
      price_minor: minor(plan.price, currency),
      duration: plan.duration,
      active: plan.active,
      position,
    };
    if (plan.id !== undefined) {
      await trx('product_plans').where({ id: plan.id, product_id: productId }).update(values);
      kept.push(plan.id);
      const was = before.get(plan.id);
      if (was !== undefined && was !== values.price_minor) {
        changed.push({ planId: plan.id, priceMinor: values.price_minor });
      }
    } else {
      const [row] = await trx('product_plans')
        .insert({ ...values, product_id: productId })
        .returning('id');
      kept.push(Number((row as { id: number }).id));
    }
  }
  await trx('product_plans')
    .where('product_id', productId)
    .whereNotIn('id', kept.length > 0 ? kept : [0])
    .update({ active: false });
  return changed;
}

async function writeCommands(trx: Knex, productId: number, commands: FivemCommandInput[]): Promise<void> {
  await trx('product_fivem_commands').where('product_id', productId).delete();
  if (commands.length > 0) {
    await trx('product_fivem_commands').insert(
      commands.map((c, position) => ({ ...c, position, product_id: productId })),
    );
  }
}

/** Adds key stock in one statement; answers the codes inserted (the others were there already). */
export async function insertCodes(trx: Knex, productId: number, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const { rows } = await trx.raw<{ rows: { code: string }[] }>(
    `insert into product_codes (product_id, code)
       select ?, c from unnest(?::text[]) as c
     on conflict (product_id, code) do nothing
     returning code`,
    [productId, [...new Set(codes)]],
  );
  return rows.map((r) => r.code);
}

/** A fresh response-encryption key for a licensed product, sealed with the platform cipher. */
function freshLicenseSecret(deps: ProductSettingsDeps): string {
  return deps.cipher.encrypt(crypto.randomBytes(32).toString('base64'));
}

export type ProductAnswer = Record<string, unknown> & { id: number; version: number };

async function answer(deps: ProductSettingsDeps, storeId: number, currency: string, id: number) {
  const detail = await productDetail(deps, { id: storeId, currency }, id);
  return detail as ProductAnswer;
}

export async function createProduct(
  deps: ProductSettingsDeps & TxDeps,
  actor: Actor,
  store: { id: number; currency: string },
  input: ProductInput,
): Promise<ProductAnswer> {
  const id = await deps
    .tx(async (uow) => {
      const { trx } = uow;
      await checkProduct(trx, store.id, input, null, [], store.currency);
      const secret = input.license?.encrypt ? freshLicenseSecret(deps) : null;
      const [row] = await trx('products')
        .insert({
          ...columns(input, store.currency),
          store_id: store.id,
          license_secret_encrypted: secret,
          version: 1,
        })
        .returning('id');
      const productId = Number((row as { id: number }).id);
      await writeCategories(trx, productId, input.categories);
      await writePlans(trx, productId, input.plans, store.currency);
      await writeCommands(trx, productId, input.fivem_commands);
      const added = await insertCodes(trx, productId, input.codes);
      const { codes: _codes, ...recorded } = input;
      await recordAudit(
        trx,
        actor,
        'product.created',
        { type: 'product', id: productId },
        {
          ...recorded,
          ...(added.length > 0 ? { codes_added: added.length } : {}),
          ...(secret ? { license_encryption_key: SECRET } : {}),
        },
      );
      noteStoreContentChangedOn(uow, store.id);
      noteLicenseProductChangedOn(uow, productId);
      return productId;
    })
    .catch((err: unknown) => {
      throw asUniqueViolation(err) ?? err;
    });
  return answer(deps, store.id, store.currency, id);
}

/**
 * Locks the product for its write. FOR NO KEY UPDATE, not FOR UPDATE: rows that only reference the
 * product (a renewal's checkout inserted under its subscription's lock) still go in meanwhile, so a price
 * change that then locks those subscriptions (subscriptions/terms.ts) cannot deadlock with them.
 */
async function lockProduct(trx: Knex, storeId: number, productId: number): Promise<Row> {
  const row = (await trx('products')
    .where({ id: productId, store_id: storeId })
    .whereNull('archived_at')
    .forNoKeyUpdate()
    .first()) as Row | undefined;
  if (!row) throw new NotFoundError(PRODUCT_NOT_FOUND);
  return row;
}

function checkVersion(row: Row, ifMatch: number | undefined): void {
  if (ifMatch !== undefined && Number(row.version) !== ifMatch) {
    throw new ConflictError(
      `The product changed since version ${ifMatch} (it is at version ${row.version}): read it again and retry`,
    );
  }
}

export async function updateProduct(
  deps: ProductSettingsDeps & TxDeps,
  actor: Actor,
  store: { id: number; currency: string },
  productId: number,
  patch: ProductPatch,
  ifMatch?: number,
): Promise<ProductAnswer> {
  await deps
    .tx(async (uow) => {
      const { trx } = uow;
      const row = await lockProduct(trx, store.id, productId);
      checkVersion(row, ifMatch);
      const before = await currentKeys(trx, row, store.currency);
      // A key given replaces the stored value whole (a list, the license settings); keys left out stay.
      const merged = { ...before, ...patch };
      const existingPlanIds = (before.plans ?? []).map((p) => p.id!);
      await checkProduct(trx, store.id, merged, productId, existingPlanIds, store.currency);
      const changes = diff(before, merged);
      const turnsEncryptionOn = merged.license?.encrypt === true && !row.license_secret_encrypted;
      if (turnsEncryptionOn) changes.license_encryption_key = { from: null, to: SECRET };
      if (Object.keys(changes).length === 0) return;

      await trx('products')
        .where('id', productId)
        .update({
          ...columns(merged, store.currency),
          ...(turnsEncryptionOn ? { license_secret_encrypted: freshLicenseSecret(deps) } : {}),
          version: trx.raw('version + 1'),
          updated_at: trx.fn.now(),
        });
      if (patch.categories) await writeCategories(trx, productId, merged.categories);
      if (patch.plans) {
        await announcePlanPrices(uow, await writePlans(trx, productId, merged.plans, store.currency));
      }
      if (patch.fivem_commands) await writeCommands(trx, productId, merged.fivem_commands);
      await recordAudit(trx, actor, 'product.updated', { type: 'product', id: productId }, changes);
      noteStoreContentChangedOn(uow, store.id);
      noteLicenseProductChangedOn(uow, productId);
      if ('stock' in changes) noteStockChangedOn(uow, [productId]);
    })
    .catch((err: unknown) => {
      throw asUniqueViolation(err) ?? err;
    });
  return answer(deps, store.id, store.currency, productId);
}

/**
 * Takes a product off sale for good: inactive and archived, so no interface offers it and the merchant's
 * list leaves it out, while orders, licenses and subscriptions keep pointing at it. Its unsold keys stay
 * (withdraw them first if they should go).
 */
export async function archiveProduct(
  deps: TxDeps,
  actor: Actor,
  storeId: number,
  productId: number,
): Promise<{ id: number; archived_at: string }> {
  return deps.tx(async (uow) => {
    const { trx } = uow;
    await lockProduct(trx, storeId, productId);
    const [row] = await trx('products')
      .where('id', productId)
      .update({
        active: false,
        archived_at: trx.fn.now(),
        version: trx.raw('version + 1'),
        updated_at: trx.fn.now(),
      })
      .returning(['id', 'archived_at']);
    await recordAudit(trx, actor, 'product.archived', { type: 'product', id: productId }, {});
    noteStoreContentChangedOn(uow, storeId);
    noteStockChangedOn(uow, [productId]);
    const out = row as { id: number; archived_at: Date };
    return { id: Number(out.id), archived_at: new Date(out.archived_at).toISOString() };
  });
}
