import type { Knex } from 'knex';
import type { ProductType } from '../../../db/models';
import type Joi from 'joi';
import type { CacheLogger } from '../../cache/versioned';
import { randomToken } from '../../crypto';
import { NotFoundError, ValidationError } from '../../errors';
import { formatMoney, parseMoney } from '../../money';
import type { TxDeps } from '../../unit-of-work';
import { productSchema, type ProductInput as MerchantProductInput, type ProductPatch } from './schema';
import type { ProductSettingsDeps } from '../licenses/product-settings';
import type { Actor } from '../audit';
import { addCodes } from './codes';
import { productDetail } from './read';
import { paginate, PageMeta } from '../../pagination';
import {
  createProduct as merchantCreateProduct,
  updateProduct as merchantUpdateProduct,
} from './product-writes';

/**
 * The dashboard's product form: reads the form (name, type, price, sale price, stock, description, active,
 * and key stock for code products) and writes through the Merchant API's product write service, so both
 * have one validation, one audit trail and one set of rules. Every write bumps the store's catalogue
 * counter, so the Embed and Storefront APIs show the change at once.
 */

export const FORM_TYPES: readonly ProductType[] = ['product', 'code', 'service', 'subscription'];

/**
 * The product form's sections that depend on the type (docs/dashboard.md, "The product form by type"); the
 * name, price, descriptions, categories, custom fields and "On sale" are every type's. `fivem` is the
 * store's switch: shown when the store has a live FiveM server or the product has commands already.
 */
export type FormSection = 'stock' | 'keys' | 'files' | 'plans' | 'license' | 'fivem';

export const TYPE_SECTIONS: Readonly<Record<ProductType, readonly FormSection[]>> = {
  product: ['stock', 'files', 'license'],
  code: ['keys'],
  service: ['stock', 'license'],
  subscription: ['stock', 'plans', 'license'],
};

/** Whether `type`'s form has `section` (`fivem` when the store has switched FiveM on). */
export function typeHas(type: string, section: FormSection, opts: { fivem: boolean }): boolean {
  if (section === 'fivem') return opts.fivem;
  return (TYPE_SECTIONS[type as ProductType] ?? []).includes(section);
}

/** A subscription plan's billing intervals, as the Merchant API names them. */
export const PLAN_DURATIONS = ['monthly', 'quarterly', 'yearly', 'lifetime'] as const;

/** The buyer-facing field types a product may ask at checkout. */
export const FIELD_TYPES = [
  'text',
  'number',
  'date',
  'datetime',
  'color',
  'select',
  'image',
  'file',
] as const;

/** Blank rows the form adds after the plans and fields a product has (saving adds more). */
export const BLANK_ROWS = 2;

/** One row of the plans table: `id` empty for a new plan; `remove` ticked drops it (deactivated). */
export interface PlanRow {
  id: string;
  name: string;
  price: string;
  duration: string;
  remove: boolean;
}

/** One row of the custom fields table; `options` one a line, "Label" or "Label | extra price". */
export interface FieldRow {
  label: string;
  /** The Arabic label (shown to Arabic readers); empty: none. */
  label_ar?: string;
  type: string;
  required: boolean;
  options: string;
  /** The options' Arabic labels, one a line in the options' order; empty: none. */
  options_ar?: string;
  remove: boolean;
}

export interface ProductRow {
  id: number;
  store_id: number;
  name: string;
  name_ar?: string | null;
  description_ar?: string | null;
  slug: string;
  description: string | null;
  type: ProductType;
  price_minor: number;
  sale_price_minor: number | null;
  active: boolean;
  stock: number | null;
  created_at: Date;
  available_codes?: number;
}

/** What the form sends, as typed: strings, checked here field by field. */
export interface ProductForm {
  name: string;
  /** The Arabic name and description (docs/store-pages.md); empty: none. */
  name_ar?: string;
  description_ar?: string;
  type: string;
  price: string;
  sale_price: string;
  stock: string;
  description: string;
  active: boolean;
  codes: string;
  /** Category ids ticked. */
  categories: string[];
  license_on: boolean;
  license_prefix: string;
  license_lock: string;
  license_max: string;
  /** FiveM commands, one a line ({player} is the buyer's server id). */
  fivem: string;
  /** Subscription plans (used when the type is subscription). */
  plans: PlanRow[];
  /** Custom fields the buyer fills in at checkout. */
  fields: FieldRow[];
}

/** The product's extra settings as the Merchant API keeps them, for the edit form. */
export interface ProductExtras {
  categories: number[];
  license: {
    enabled: boolean;
    prefix: string | null;
    lock_type: string;
    max_activations: number;
    encrypt: boolean;
  };
  fivem_commands: Record<string, unknown>[];
  plans: { id: number; name: string; price: string; duration: string; active: boolean }[];
  fields: {
    type: string;
    label: string;
    label_ar?: string | null;
    required: boolean;
    options: { label: string; label_ar?: string | null; price: string }[];
  }[];
}

export interface PlanInputRow {
  id?: number;
  name: string;
  price_minor: number;
  duration: (typeof PLAN_DURATIONS)[number];
}

export interface FieldInputRow {
  type: (typeof FIELD_TYPES)[number];
  label: string;
  label_ar?: string | null;
  required: boolean;
  options: { label: string; label_ar?: string | null; price_minor: number }[];
}

export interface ProductInput {
  name: string;
  name_ar?: string | null;
  description_ar?: string | null;
  type: ProductType;
  price_minor: number;
  sale_price_minor: number | null;
  stock: number | null;
  description: string | null;
  active: boolean;
  codes: string[];
  categories: number[];
  /** Off (null), on, or left as it is (undefined: the type has no license section). */
  license: { prefix: string; lock_type: string; max_activations: number } | null | undefined;
  /** The FiveM commands, or undefined: the store has FiveM off, left as they are. */
  fivem: string[] | undefined;
  /** The plans, or undefined: not a subscription, left as they are. */
  plans: PlanInputRow[] | undefined;
  fields: FieldInputRow[];
}

/** Field errors keyed by form field; each value a message key of the dashboard's message files. */
export type FormErrors = Partial<Record<keyof ProductForm, string>>;

export const MAX_CODES_PER_SAVE = 5_000;

/** Checks the form; returns the input, or the errors of every bad field at once. */
export function readProductForm(
  form: ProductForm,
  currency: string,
  opts: { fivem: boolean } = { fivem: true },
): { ok: true; input: ProductInput } | { ok: false; errors: FormErrors } {
  const errors: FormErrors = {};
  const name = form.name.trim();
  if (!name) errors.name = 'required';
  else if (name.length > 200) errors.name = 'tooLong';
  const type = (FORM_TYPES as readonly string[]).includes(form.type) ? (form.type as ProductType) : null;
  if (!type) errors.type = 'badType';
  // Only the sections of the chosen type are read: another type's fields are ignored, never saved.
  const has = (section: FormSection) => type !== null && typeHas(type, section, opts);
  const price = parseMoney(form.price.trim(), currency);
  if (!form.price.trim()) errors.price = 'required';
  else if (price === null) errors.price = 'badMoney';
  let sale: number | null = null;
  if (form.sale_price.trim()) {
    sale = parseMoney(form.sale_price.trim(), currency);
    if (sale === null) errors.sale_price = 'badMoney';
    else if (price !== null && sale >= price) errors.sale_price = 'saleBelowPrice';
  }
  let stock: number | null = null;
  if (has('stock') && form.stock.trim()) {
    stock = /^\d{1,9}$/.test(form.stock.trim()) ? Number(form.stock.trim()) : null;
    if (stock === null) errors.stock = 'badStock';
  }
  const description = form.description.trim();
  if (description.length > 10_000) errors.description = 'tooLong';
  const nameAr = (form.name_ar ?? '').trim();
  if (nameAr.length > 200) errors.name_ar = 'tooLong';
  const descriptionAr = (form.description_ar ?? '').trim();
  if (descriptionAr.length > 10_000) errors.description_ar = 'tooLong';
  const codes = [
    ...new Set(
      (has('keys') ? form.codes : '')
        .split(/\r?\n|,/)
        .map((c) => c.trim())
        .filter(Boolean),
    ),
  ];
  if (codes.length > MAX_CODES_PER_SAVE || codes.some((c) => c.length > 500)) errors.codes = 'tooManyCodes';
  const license = !has('license')
    ? undefined
    : form.license_on
      ? {
          prefix: form.license_prefix.trim(),
          lock_type: form.license_lock || 'none',
          max_activations: /^\d{1,7}$/.test(form.license_max.trim()) ? Number(form.license_max.trim()) : 0,
        }
      : null;
  if (license && !/^[A-Za-z0-9]{1,20}$/.test(license.prefix)) errors.license_prefix = 'rejected';
  if (license && form.license_max.trim() && !/^\d{1,7}$/.test(form.license_max.trim()))
    errors.license_max = 'badStock';
  const fivem = has('fivem')
    ? form.fivem
        .split(/\r?\n/)
        .map((c) => c.trim())
        .filter(Boolean)
    : undefined;
  if (fivem && (fivem.length > 50 || fivem.some((c) => c.length > 1000))) errors.fivem = 'tooLong';
  const categories = form.categories.filter((c) => /^\d{1,10}$/.test(c)).map(Number);
  const plans: PlanInputRow[] = [];
  for (const row of has('plans') ? form.plans : []) {
    const blank = !row.id && !row.name.trim() && !row.price.trim();
    if (blank || row.remove) continue;
    const planPrice = parseMoney(row.price.trim(), currency);
    const duration = (PLAN_DURATIONS as readonly string[]).includes(row.duration) ? row.duration : null;
    if (!row.name.trim() || row.name.trim().length > 200 || !row.price.trim())
      errors.plans ??= 'planRequired';
    else if (planPrice === null) errors.plans ??= 'badMoney';
    else if (!duration || (row.id && !/^\d{1,10}$/.test(row.id))) errors.plans ??= 'rejected';
    else {
      plans.push({
        ...(row.id ? { id: Number(row.id) } : {}),
        name: row.name.trim(),
        price_minor: planPrice,
        duration: duration as PlanInputRow['duration'],
      });
    }
  }
  if (type === 'subscription' && plans.length === 0) errors.plans ??= 'planNeeded';
  const fields: FieldInputRow[] = [];
  for (const row of form.fields) {
    if (row.remove || (!row.label.trim() && !row.options.trim())) continue;
    const fieldType = (FIELD_TYPES as readonly string[]).includes(row.type) ? row.type : null;
    const options: FieldInputRow['options'] = [];
    // The Arabic labels line up with the options line by line (an empty line: none for that option).
    const arabic = (row.options_ar ?? '').split(/\r?\n/).map((l) => l.trim());
    while (arabic.length > 0 && arabic[arabic.length - 1] === '') arabic.pop();
    for (const line of row.options.split(/\r?\n/)) {
      if (!line.trim()) continue;
      const [label = '', extra = ''] = line.split('|').map((part) => part.trim());
      const extraMinor = extra ? parseMoney(extra, currency) : 0;
      const labelAr = arabic[options.length] || null;
      if (!label || label.length > 200 || extraMinor === null || (labelAr !== null && labelAr.length > 200))
        errors.fields ??= 'badOption';
      else options.push({ label, ...(labelAr ? { label_ar: labelAr } : {}), price_minor: extraMinor });
    }
    if (arabic.length > options.length) errors.fields ??= 'badOption';
    const labelAr = (row.label_ar ?? '').trim();
    if (!row.label.trim() || row.label.trim().length > 200 || labelAr.length > 200)
      errors.fields ??= 'fieldLabel';
    else if (!fieldType) errors.fields ??= 'rejected';
    else if (fieldType === 'select' && options.length === 0) errors.fields ??= 'selectOptions';
    else if (fieldType !== 'select' && options.length > 0) errors.fields ??= 'optionsOnSelect';
    else {
      fields.push({
        type: fieldType as FieldInputRow['type'],
        label: row.label.trim(),
        ...(labelAr ? { label_ar: labelAr } : {}),
        required: row.required,
        options,
      });
    }
  }
  if (plans.length > 50 || fields.length > 50) errors.plans ??= 'tooLong';
  if (Object.keys(errors).length > 0 || !type || price === null) return { ok: false, errors };
  return {
    ok: true,
    input: {
      name,
      type,
      price_minor: price,
      sale_price_minor: sale,
      stock: has('stock') ? stock : null,
      description: description || null,
      name_ar: nameAr || null,
      description_ar: descriptionAr || null,
      active: form.active,
      codes,
      categories,
      license,
      fivem,
      plans: has('plans') ? plans : undefined,
      fields,
    },
  };
}

function slugOf(name: string): string {
  const base = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return base || 'product';
}

/**
 * The form's license and FiveM settings as Merchant API keys. Against the product's current settings
 * (an edit), a key the form leaves as it was is left out, so what the form does not show (a command's
 * timing, the encryption switch) is kept.
 */
function extraKeys(input: ProductInput, current: ProductExtras | null): Record<string, unknown> {
  const keys: Record<string, unknown> = { categories: input.categories };
  const was = current?.license;
  const same =
    input.license === undefined ||
    (input.license === null && !was?.enabled) ||
    (input.license !== null &&
      was?.enabled === true &&
      was.prefix === input.license.prefix &&
      was.lock_type === input.license.lock_type &&
      was.max_activations === input.license.max_activations);
  if (!same) keys.license = input.license ? { ...input.license, encrypt: was?.encrypt ?? false } : null;
  const before = (current?.fivem_commands ?? []).map((c) => String(c.command));
  const fivem = input.fivem;
  if (fivem !== undefined && before.join('\n') !== fivem.join('\n')) {
    keys.fivem_commands = fivem.map((command) => {
      const kept = current?.fivem_commands.find((c) => c.command === command);
      if (!kept) return { command };
      const { id: _id, ...rest } = kept;
      return rest;
    });
  }
  return keys;
}

/** The form's input as the Merchant API's product keys (decimal strings in the store's currency). */
function merchantKeys(input: ProductInput, currency: string) {
  const money = (minor: number) => formatMoney(minor, currency);
  return {
    ...(input.plans !== undefined
      ? {
          plans: input.plans.map((p) => ({
            ...(p.id !== undefined ? { id: p.id } : {}),
            name: p.name,
            price: money(p.price_minor),
            duration: p.duration,
            active: true,
          })),
        }
      : {}),
    fields: input.fields.map((f) => ({
      type: f.type,
      label: f.label,
      label_ar: f.label_ar ?? null,
      required: f.required,
      ...(f.type === 'select'
        ? {
            options: f.options.map((o) => ({
              label: o.label,
              label_ar: o.label_ar ?? null,
              price: money(o.price_minor),
            })),
          }
        : {}),
    })),
    name: input.name,
    name_ar: input.name_ar ?? null,
    type: input.type,
    description: input.description,
    description_ar: input.description_ar ?? null,
    price: formatMoney(input.price_minor, currency),
    sale_price: input.sale_price_minor === null ? null : formatMoney(input.sale_price_minor, currency),
    active: input.active,
    stock: input.stock,
  };
}

/** A slug for a new product: from its name, made unique in the store. */
async function freeSlug(knex: Knex, storeId: number, name: string): Promise<string> {
  const base = slugOf(name);
  const taken = await knex('products').where({ store_id: storeId, slug: base }).first('id');
  return taken
    ? `${base}-${randomToken(4)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, 'x')}`
    : base;
}

/**
 * Creates the product through the Merchant API's write service (shared/services/catalogue/product-writes.ts):
 * the same schema (shared/services/catalogue/schema.ts), checks, audit row and key stock as
 * `POST /shawarma/products`. A refusal is that service's ValidationError, naming the fields.
 */
export async function createProduct(
  deps: ProductSettingsDeps & TxDeps & { logger?: CacheLogger },
  actor: Actor,
  store: { id: number; currency: string },
  input: ProductInput,
): Promise<{ id: number }> {
  const keys = {
    ...merchantKeys(input, store.currency),
    ...extraKeys(input, null),
    slug: await freeSlug(deps.knex, store.id, input.name),
    codes: input.codes,
  };
  const { value, error } = productSchema('create').validate(keys, { abortEarly: false });
  if (error) throw joiToValidation(error);
  const created = await merchantCreateProduct(deps, actor, store, value as MerchantProductInput);
  return { id: Number(created.id) };
}

/** Saves the form through the Merchant API's update (PATCH semantics), then adds the new keys. */
export async function updateProduct(
  deps: ProductSettingsDeps & TxDeps & { logger?: CacheLogger },
  actor: Actor,
  store: { id: number; currency: string },
  productId: number,
  input: ProductInput,
): Promise<{ codesAdded: number }> {
  const current = await productExtras(deps, store, productId);
  const { value, error } = productSchema('patch').validate(
    { ...merchantKeys(input, store.currency), ...extraKeys(input, current) },
    { abortEarly: false },
  );
  if (error) throw joiToValidation(error);
  await merchantUpdateProduct(deps, actor, store, productId, value as ProductPatch);
  let codesAdded = 0;
  if (input.type === 'code' && input.codes.length > 0) {
    codesAdded = (await addCodes(deps, actor, store.id, productId, input.codes)).added;
  }
  return { codesAdded };
}

/** The product's categories, license settings and FiveM commands as the Merchant API shows them. */
export async function productExtras(
  deps: ProductSettingsDeps,
  store: { id: number; currency: string },
  productId: number,
): Promise<ProductExtras> {
  const detail = await productDetail(deps, store, productId);
  const cats = (detail.categories as { id: number }[] | undefined) ?? [];
  return {
    categories: cats.map((c) => Number(c.id)),
    license: detail.license as ProductExtras['license'],
    fivem_commands: (detail.fivem_commands as Record<string, unknown>[]) ?? [],
    plans: (detail.plans as ProductExtras['plans']) ?? [],
    fields: (detail.fields as ProductExtras['fields']) ?? [],
  };
}

/** The form's rows for a product's plans (active ones; removed plans are kept deactivated) and fields. */
export function rowsOf(extras: Pick<ProductExtras, 'plans' | 'fields'> | null): {
  plans: PlanRow[];
  fields: FieldRow[];
} {
  return {
    plans: (extras?.plans ?? [])
      .filter((p) => p.active)
      .map((p) => ({ id: String(p.id), name: p.name, price: p.price, duration: p.duration, remove: false })),
    fields: (extras?.fields ?? []).map((f) => ({
      label: f.label,
      label_ar: f.label_ar ?? '',
      type: f.type,
      required: f.required,
      options: f.options.map((o) => (Number(o.price) === 0 ? o.label : `${o.label} | ${o.price}`)).join('\n'),
      options_ar: f.options.map((o) => o.label_ar ?? '').join('\n'),
      remove: false,
    })),
  };
}

function joiToValidation(error: Joi.ValidationError): ValidationError {
  const errors: Record<string, string[]> = {};
  for (const d of error.details) (errors[String(d.path[0])] ??= []).push(d.message);
  return new ValidationError(errors);
}

/** FiveM is switched on for the store: it has a game server that is not revoked (docs/fivem.md). */
export async function storeFivemOn(knex: Knex, storeId: number): Promise<boolean> {
  const row = await knex('fivem_servers').where('store_id', storeId).whereNull('revoked_at').first('id');
  return row !== undefined;
}

export async function findProduct(knex: Knex, storeId: number, productId: number): Promise<ProductRow> {
  const row = await knex('products').where({ id: productId, store_id: storeId }).first();
  if (!row) throw new NotFoundError('Product not found');
  const [codes] = await knex('product_codes')
    .where({ product_id: productId, status: 'available' })
    .count<{ n: string }[]>('* as n');
  return { ...normalize(row), available_codes: Number(codes?.n ?? 0) };
}

function normalize(row: Record<string, unknown>): ProductRow {
  return {
    ...(row as unknown as ProductRow),
    price_minor: Number(row.price_minor),
    sale_price_minor: row.sale_price_minor === null ? null : Number(row.sale_price_minor),
  };
}

export async function listProducts(
  knex: Knex,
  storeId: number,
  page: number,
  perPage = 20,
): Promise<{ items: ProductRow[]; meta: PageMeta }> {
  // A code product's stock is its keys left (never "unlimited"): counted for the page's rows only.
  const base = knex('products')
    .where('store_id', storeId)
    .select(
      'products.*',
      knex.raw(
        "(select count(*) from product_codes c where c.product_id = products.id and c.status = 'available')::int as available_codes",
      ),
    );
  const { rows, meta } = await paginate<Record<string, unknown>>(base, { page, per_page: perPage }, (q) =>
    q.orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]),
  );
  return { items: rows.map(normalize), meta };
}
