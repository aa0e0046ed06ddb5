import { FILES_TEXT } from '../files/strings';
import type {
  FieldRow,
  FormErrors,
  PlanRow,
  ProductForm,
  ProductRow,
} from '../../../../shared/services/catalogue/product-form';
import {
  BLANK_ROWS,
  FIELD_TYPES,
  FORM_TYPES,
  PLAN_DURATIONS,
  TYPE_SECTIONS,
  type FormSection,
} from '../../../../shared/services/catalogue/product-form';
import type { listProductKeys } from '../../../../shared/services/catalogue/product-keys';
import type { PageMeta } from '../../../../shared/pagination';
import { PRODUCT_TEXT } from './strings';

type ProductKeyList = Awaited<ReturnType<typeof listProductKeys>>;
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell, money, pager } from '../../view-parts';
import { LAUNCH_TEXT } from '../launch/strings';

/** The products pages' content: the list and the product form. */

/** The labels of the Arabic name and description (docs/store-pages.md: shown to Arabic readers). */
const ARABIC_TEXTS = {
  en: { name: 'Name in Arabic', description: 'Description in Arabic' },
  ar: { name: 'الاسم بالعربية', description: 'الوصف بالعربية' },
} as const;

// ---------------------------------------------------------------- products

export function productsView(
  s: Shell,
  list: { items: ProductRow[]; meta: PageMeta },
  currency: string,
): string {
  const t = s.t;
  const rows = list.items
    .map(
      (
        p,
      ) => `<tr><td><a href="/merchant/products/${p.id}"><bdi>${esc(p.name)}</bdi></a><br><span class="muted">${esc(t.productId)} <span class="num" data-product-id="${p.id}">${p.id}</span></span></td>
<td>${esc(t.typeName[p.type] ?? p.type)}</td>
<td class="num">${esc(money(s, p.sale_price_minor ?? p.price_minor, currency))}${p.sale_price_minor !== null ? ` <s class="muted">${esc(money(s, p.price_minor, currency))}</s>` : ''}</td>
<td class="num">${p.type === 'code' ? `<span data-keys-left="${p.available_codes ?? 0}">${esc(LAUNCH_TEXT[s.locale].keysLeft(p.available_codes ?? 0))}</span>` : p.stock === null ? esc(t.unlimited) : p.stock}</td><td>${esc(p.active ? t.yes : t.no)}</td></tr>`,
    )
    .join('');
  const table = list.items.length
    ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.type)}</th><th scope="col">${esc(t.price)}</th><th scope="col">${esc(t.stock)}</th><th scope="col">${esc(t.active)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="muted">${esc(t.noProducts)}</p>`;
  return shellPage(
    { ...s, current: 'products' },
    t.products,
    `<h1>${esc(t.products)}</h1>
<p><a class="button" href="/merchant/products/new" style="margin-top:0">${esc(t.newProduct)}</a></p>
<section class="card">${table}${pager(s, '/merchant/products', new URLSearchParams(), list.meta)}</section>`,
  );
}

export function productFormView(
  s: Shell,
  opts: {
    productId: number | null;
    values: ProductForm;
    errors: FormErrors;
    notice: string | null;
    availableCodes: number | null;
    currency: string;
    categories?: { id: number; name: string }[];
    /** The product's share card (share.ts): its buy link, QR code and widget snippet. */
    share?: string;
    /** The product's keys card (a code product's page). */
    keys?: string;
    /** The store has FiveM switched on (a live game server), or the product has commands. */
    fivem: boolean;
    /**
     * Every type's sections shown (the new form before a type is chosen): the page's script then hides
     * those the selected type has not. Otherwise only the type's sections are shown, the others hidden
     * and disabled for the script to bring back when the type select changes.
     */
    showAll?: boolean;
  },
): string {
  const t = s.t;
  const p = PRODUCT_TEXT[s.locale];
  const { values: v, errors: e } = opts;
  const typesOf = (section: FormSection): string[] =>
    section === 'fivem'
      ? [...FORM_TYPES]
      : FORM_TYPES.filter((type) => TYPE_SECTIONS[type].includes(section));
  /** A section only some types have: `data-types` for the script; hidden and disabled when not the type's. */
  const section = (name: FormSection, body: string, legend = ''): string => {
    const types = typesOf(name);
    const shown = opts.showAll || types.includes(v.type as (typeof FORM_TYPES)[number]);
    const note =
      name === 'fivem' || types.length === FORM_TYPES.length
        ? ''
        : `<p class="hint" data-section-note>${esc(p.sectionFor(types.map((type) => t.typeName[type]).join(' · ')))}</p>`;
    return `<fieldset class="plain" data-section="${name}" data-types="${types.join(' ')}"${shown ? '' : ' hidden disabled'}>${legend ? `<legend>${esc(legend)}</legend>` : ''}${note}${body}</fieldset>`;
  };
  const categoryBoxes = (opts.categories ?? []).length
    ? `<fieldset class="plain"><legend>${esc(t.categories)}</legend><div class="checks">${(
        opts.categories ?? []
      )
        .map(
          (c) =>
            `<label class="check"><input type="checkbox" name="categories" value="${c.id}"${v.categories.includes(String(c.id)) ? ' checked' : ''}> <bdi>${esc(c.name)}</bdi></label>`,
        )
        .join('')}</div></fieldset>`
    : '';
  const lockOptions = ['none', 'hwid', 'ip']
    .map(
      (l) => `<option value="${l}"${v.license_lock === l ? ' selected' : ''}>${esc(t.lockName[l])}</option>`,
    )
    .join('');
  const fieldError = (name: keyof ProductForm) =>
    e[name]
      ? `<p id="${name}-error" class="field-error">${esc(t.fieldErrors[e[name] as string] ?? '')}</p>`
      : '';
  const invalid = (name: keyof ProductForm, described = '') =>
    e[name]
      ? ` aria-invalid="true" aria-describedby="${name}-error${described ? ` ${described}` : ''}"`
      : described
        ? ` aria-describedby="${described}"`
        : '';
  const title = opts.productId ? t.editProduct : t.newProduct;
  const action = opts.productId ? `/merchant/products/${opts.productId}` : '/merchant/products';
  const types = FORM_TYPES.map(
    (type) =>
      `<option value="${type}"${v.type === type ? ' selected' : ''}>${esc(t.typeName[type])}</option>`,
  ).join('');
  // A code product's stock is its keys left, never "unlimited" (docs/dashboard.md).
  const keysLeft =
    opts.availableCodes !== null && opts.productId
      ? `<p class="muted"><strong>${esc(p.keysLeftTitle)}:</strong> <span data-keys-left="${opts.availableCodes}">${esc(LAUNCH_TEXT[s.locale].keysLeft(opts.availableCodes))}</span> · <a href="/merchant/products/${opts.productId}/keys">${esc(t.uploadKeys)}</a> · <a href="#keys">${esc(p.keys)}</a></p>`
      : '';
  const filesLink = opts.productId
    ? `<p class="muted"><a href="/merchant/products/${opts.productId}/files">${esc(FILES_TEXT[s.locale].filesLink)}</a></p>`
    : '';
  const typePicker = opts.productId
    ? ''
    : `<nav class="muted" aria-label="${esc(p.chooseType)}" data-type-picker>${esc(p.chooseType)} ${FORM_TYPES.map(
        (type) =>
          `<a href="/merchant/products/new?type=${type}"${!opts.showAll && v.type === type ? ' aria-current="true"' : ''}>${esc(t.typeName[type])}</a>`,
      ).join(' · ')}</nav>`;
  return shellPage(
    { ...s, current: 'products' },
    title,
    `<p><a href="/merchant/products">${s.t.dir === 'rtl' ? '→' : '←'} ${esc(t.products)}</a></p>
<h1>${esc(title)}${opts.productId ? ` <span class="muted num">#${opts.productId}</span>` : ''}</h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${Object.keys(e).length ? `<p class="error" role="alert">${esc(t.fixErrors)}</p>` : ''}
${typePicker}
<form method="post" action="${action}" class="card" novalidate data-product-form>
${tokenField(s.formToken)}
<label for="name">${esc(t.name)}</label>
<input id="name" name="name" required maxlength="200" value="${esc(v.name)}"${invalid('name')}>
${fieldError('name')}
<label for="type">${esc(t.type)}</label>
<select id="type" name="type"${invalid('type')}>${types}</select>
${fieldError('type')}
<div class="row">
<div><label for="price">${esc(t.price)}</label>
<input id="price" name="price" inputmode="decimal" required maxlength="16" dir="ltr" value="${esc(v.price)}"${invalid('price', 'price-hint')}>
<span id="price-hint" class="hint">${esc(opts.currency)}</span>
${fieldError('price')}</div>
<div><label for="sale_price">${esc(t.salePrice)} <span class="hint" style="display:inline">${esc(t.optional)}</span></label>
<input id="sale_price" name="sale_price" inputmode="decimal" maxlength="16" dir="ltr" value="${esc(v.sale_price)}"${invalid('sale_price')}>
${fieldError('sale_price')}</div>
</div>
${section(
  'stock',
  `<label for="stock">${esc(t.stock)}</label>
<input id="stock" name="stock" inputmode="numeric" maxlength="9" dir="ltr" value="${esc(v.stock)}"${invalid('stock', 'stock-hint')}>
<span id="stock-hint" class="hint">${esc(t.stockHint)}</span>
${fieldError('stock')}`,
)}
<label for="description">${esc(t.description)}</label>
<textarea id="description" name="description" rows="4" maxlength="10000"${invalid('description')}>${esc(v.description)}</textarea>
${fieldError('description')}
<label for="name_ar">${esc(ARABIC_TEXTS[s.locale].name)} <span class="hint" style="display:inline">${esc(t.optional)}</span></label>
<input id="name_ar" name="name_ar" maxlength="200" dir="rtl" lang="ar" value="${esc(v.name_ar ?? '')}"${invalid('name_ar')}>
${fieldError('name_ar')}
<label for="description_ar">${esc(ARABIC_TEXTS[s.locale].description)} <span class="hint" style="display:inline">${esc(t.optional)}</span></label>
<textarea id="description_ar" name="description_ar" rows="4" maxlength="10000" dir="rtl" lang="ar"${invalid('description_ar')}>${esc(v.description_ar ?? '')}</textarea>
${fieldError('description_ar')}
${section(
  'keys',
  `${keysLeft}
<label for="codes">${esc(t.codes)}</label>
<textarea id="codes" name="codes" rows="4" dir="ltr"${invalid('codes', 'codes-hint')}>${esc(v.codes)}</textarea>
<span id="codes-hint" class="hint">${esc(t.codesHint)}</span>
${fieldError('codes')}`,
  p.keysSection,
)}
${filesLink ? section('files', filesLink) : ''}
${categoryBoxes}
${section(
  'license',
  `<label class="check" for="license_on"><input type="checkbox" id="license_on" name="license_on" value="1"${v.license_on ? ' checked' : ''}> ${esc(t.licenseOn)}</label>
<div class="row"><div><label for="license_prefix">${esc(t.licensePrefix)}</label>
<input id="license_prefix" name="license_prefix" maxlength="20" dir="ltr" autocomplete="off" value="${esc(v.license_prefix)}"${invalid('license_prefix')}>${fieldError('license_prefix')}</div>
<div><label for="license_lock">${esc(t.licenseLock)}</label><select id="license_lock" name="license_lock">${lockOptions}</select></div>
<div><label for="license_max">${esc(t.licenseMax)}</label>
<input id="license_max" name="license_max" inputmode="numeric" maxlength="7" dir="ltr" value="${esc(v.license_max)}"${invalid('license_max', 'license_max-hint')}><span id="license_max-hint" class="hint">${esc(t.licenseMaxHint)}</span>${fieldError('license_max')}</div></div>`,
  t.licenseSettings,
)}
${section('plans', plansSection(s, opts), t.plans)}
${customFields(s, opts)}
${
  opts.fivem
    ? section(
        'fivem',
        `<label for="fivem">${esc(t.fivemCommands)}</label>
<span class="hint">${esc(p.fivemHint)}</span>
<textarea id="fivem" name="fivem" rows="3" dir="ltr"${invalid('fivem', 'fivem-hint')}>${esc(v.fivem)}</textarea>
<span id="fivem-hint" class="hint">${esc(t.fivemHint)}</span>
${fieldError('fivem')}`,
      )
    : ''
}
<label class="check" for="active"><input type="checkbox" id="active" name="active" value="1"${v.active ? ' checked' : ''}> ${esc(t.active)}</label>
<button type="submit">${esc(t.save)}</button>
</form>
<script src="/merchant/assets/product-form.js" defer></script>
${opts.keys ?? ''}
${opts.share ?? ''}`,
  );
}

/**
 * The product form's repeated rows: the product's plans and custom fields, then BLANK_ROWS blank ones
 * (saving shows two more). Plain inputs, no script: a blank row is ignored, a ticked "Remove" drops its row.
 */
type RowsOpts = { values: ProductForm; errors: FormErrors; currency: string };

const groupError = (s: Shell, e: FormErrors, name: 'plans' | 'fields') =>
  e[name]
    ? `<p id="${name}-error" class="field-error" role="alert">${esc(s.t.fieldErrors[e[name] as string] ?? '')}</p>`
    : '';
const groupInvalid = (e: FormErrors, name: 'plans' | 'fields') =>
  e[name] ? ` aria-describedby="${name}-error"` : '';

/** The subscription plans table (the `plans` section: subscriptions only). */
function plansSection(s: Shell, opts: RowsOpts): string {
  const t = s.t;
  const { values: v, errors: e } = opts;
  const blankPlan: PlanRow = { id: '', name: '', price: '', duration: 'monthly', remove: false };
  const plans = [...v.plans, ...Array.from({ length: BLANK_ROWS }, () => blankPlan)];
  const planRows = plans
    .map((p, i) => {
      const n = i + 1;
      const durations = PLAN_DURATIONS.map(
        (d) =>
          `<option value="${d}"${p.duration === d ? ' selected' : ''}>${esc(t.durationName[d] ?? d)}</option>`,
      ).join('');
      return `<fieldset class="rowset"><legend>${esc(t.planN(n))}</legend>
<input type="hidden" name="plan_id" value="${esc(p.id)}">
<div class="cols"><div><label for="plan_name_${i}">${esc(t.planName)}</label>
<input id="plan_name_${i}" name="plan_name" maxlength="200" value="${esc(p.name)}"></div>
<div><label for="plan_price_${i}">${esc(t.price)} <span class="hint" style="display:inline">${esc(opts.currency)}</span></label>
<input id="plan_price_${i}" name="plan_price" inputmode="decimal" maxlength="16" dir="ltr" value="${esc(p.price)}"></div>
<div><label for="plan_duration_${i}">${esc(t.planInterval)}</label>
<select id="plan_duration_${i}" name="plan_duration">${durations}</select></div></div>
${p.id ? `<label class="check" for="plan_remove_${i}"><input type="checkbox" id="plan_remove_${i}" name="plan_remove" value="${i}"${p.remove ? ' checked' : ''}> ${esc(t.removeRow)}</label>` : ''}
</fieldset>`;
    })
    .join('');
  return `<div${groupInvalid(e, 'plans')}>
<span class="hint">${esc(t.plansHint)}</span>
${groupError(s, e, 'plans')}
${planRows}
</div>`;
}

/** The custom fields table, every type's: each field's label and options in English and in Arabic. */
function customFields(s: Shell, opts: RowsOpts): string {
  const t = s.t;
  const p = PRODUCT_TEXT[s.locale];
  const { values: v, errors: e } = opts;
  const blankField: FieldRow = {
    label: '',
    label_ar: '',
    type: 'text',
    required: false,
    options: '',
    options_ar: '',
    remove: false,
  };
  const fields = [...v.fields, ...Array.from({ length: BLANK_ROWS }, () => blankField)];
  const fieldRows = fields
    .map((f, i) => {
      const n = i + 1;
      const types = FIELD_TYPES.map(
        (ft) =>
          `<option value="${ft}"${f.type === ft ? ' selected' : ''}>${esc(t.fieldTypeName[ft] ?? ft)}</option>`,
      ).join('');
      return `<fieldset class="rowset"><legend>${esc(t.fieldN(n))}</legend>
<div class="cols"><div><label for="field_label_${i}">${esc(t.fieldLabel)}</label>
<input id="field_label_${i}" name="field_label" maxlength="200" value="${esc(f.label)}"></div>
<div><label for="field_label_ar_${i}">${esc(p.fieldLabelAr)}</label>
<input id="field_label_ar_${i}" name="field_label_ar" maxlength="200" dir="rtl" lang="ar" value="${esc(f.label_ar ?? '')}"></div>
<div><label for="field_type_${i}">${esc(t.fieldKind)}</label>
<select id="field_type_${i}" name="field_type">${types}</select></div></div>
<div class="cols"><div><label for="field_options_${i}">${esc(t.fieldOptions)}</label>
<textarea id="field_options_${i}" name="field_options" rows="2" aria-describedby="field-options-hint">${esc(f.options)}</textarea></div>
<div><label for="field_options_ar_${i}">${esc(p.fieldOptionsAr)}</label>
<textarea id="field_options_ar_${i}" name="field_options_ar" rows="2" dir="rtl" lang="ar" aria-describedby="field-options-ar-hint">${esc(f.options_ar ?? '')}</textarea></div></div>
<label class="check" for="field_required_${i}"><input type="checkbox" id="field_required_${i}" name="field_required" value="${i}"${f.required ? ' checked' : ''}> ${esc(t.fieldRequired)}</label>
${f.label ? `<label class="check" for="field_remove_${i}"><input type="checkbox" id="field_remove_${i}" name="field_remove" value="${i}"${f.remove ? ' checked' : ''}> ${esc(t.removeRow)}</label>` : ''}
</fieldset>`;
    })
    .join('');
  return `<fieldset class="plain" data-section="fields"${groupInvalid(e, 'fields')}><legend>${esc(t.customFields)}</legend>
<span class="hint">${esc(t.customFieldsHint)}</span>
<span id="field-options-hint" class="hint">${esc(t.fieldOptionsHint)}</span>
<span id="field-options-ar-hint" class="hint">${esc(p.fieldOptionsArHint)}</span>
${groupError(s, e, 'fields')}
${fieldRows}
</fieldset>`;
}

/**
 * A code product's keys card (docs/dashboard.md, "A product's keys"): the counts (left, held by a
 * checkout, sold, withdrawn), a page of keys newest first, masked to their last four characters, and a
 * Delete form (with the form token) for each key on sale; a sold or held key has none.
 */
export function keysCard(
  s: Shell,
  productId: number,
  list: ProductKeyList,
  flash: { notice: string | null; error: string | null },
): string {
  const p = PRODUCT_TEXT[s.locale];
  const c = list.counts;
  const counts = (['available', 'reserved', 'sold', 'withdrawn'] as const)
    .map((k) => `<dt>${esc(p.counts[k])}</dt><dd class="num" data-key-count="${k}">${c[k]}</dd>`)
    .join('');
  const rows = list.items
    .map(
      (
        k,
      ) => `<tr data-key-row="${k.id}" data-key-status="${k.status}"><td class="mono" dir="ltr">${esc(k.masked)}</td>
<td>${esc(p.keyStatus[k.status])}</td><td class="num">${esc(k.created_at.toISOString().slice(0, 10))}</td>
<td>${
        k.status === 'available'
          ? `<form method="post" action="/merchant/products/${productId}/keys/${k.id}/delete" style="margin:0">${tokenField(s.formToken)}<button type="submit" class="secondary" aria-label="${esc(p.deleteKey(k.last4))}">${esc(p.deleteLabel)}</button></form>`
          : ''
      }</td></tr>`,
    )
    .join('');
  const link = (page: number, label: string) =>
    `<a href="/merchant/products/${productId}?keys_page=${page}#keys">${esc(label)}</a>`;
  const pager =
    list.pages > 1
      ? `<p class="muted">${list.page > 1 ? `${link(list.page - 1, p.previous)} · ` : ''}${esc(p.keysPage(list.page, list.pages))}${list.page < list.pages ? ` · ${link(list.page + 1, p.next)}` : ''}</p>`
      : '';
  return `<section class="card" id="keys" aria-labelledby="keys-title" data-keys-card>
<h2 id="keys-title">${esc(p.keys)}</h2>
${flash.notice ? `<p class="notice" role="status">${esc(flash.notice)}</p>` : ''}
${flash.error ? `<p class="error" role="alert" data-keys-error>${esc(flash.error)}</p>` : ''}
<dl>${counts}</dl>
${
  list.items.length
    ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(p.key)}</th><th scope="col">${esc(p.status)}</th><th scope="col">${esc(p.added)}</th><th scope="col">${esc(p.deleteLabel)}</th></tr></thead><tbody>${rows}</tbody></table></div>${pager}`
    : `<p class="muted">${esc(p.noKeys)}</p>`
}
</section>`;
}
