import type { ReminderFigures } from '../../../../shared/services/growth/abandoned';
import type { CreatorView } from '../../../../shared/services/growth/creators';
import type { SaleView } from '../../../../shared/services/growth/sales-admin';
import { formatDate } from '../../i18n';
import { esc, shellPage, ShellContext, tokenField } from '../../layout';
import { count } from '../../view-parts';

type Shell = Omit<ShellContext, 'current'>;

/** The growth page's own words (docs/growth.md), Arabic and English. */
const T = {
  en: {
    title: 'Sales & creators',
    recovery: 'Abandoned checkouts',
    sent: 'Reminders sent',
    recovered: 'Checkouts recovered',
    revenue: 'Revenue recovered',
    delay: 'Remind after (minutes; 0: never)',
    reminderCoupon: 'Coupon named in the reminder (optional)',
    saveRecovery: 'Save reminder settings',
    sales: 'Timed sales',
    noSales: 'No sales scheduled.',
    name: 'Name',
    percent: 'Percent off',
    amount: 'Amount off',
    amountHint: 'Give a percent or an amount, not both.',
    products: 'Products',
    categories: 'Categories',
    starts: 'Starts (the store’s time)',
    ends: 'Ends (the store’s time)',
    stackable: 'Adds to other sales (stackable)',
    state: 'State',
    states: { scheduled: 'Scheduled', running: 'Running', ended: 'Ended' },
    schedule: 'Schedule the sale',
    remove: 'Delete',
    creators: 'Creators',
    noCreators: 'No creators yet.',
    code: 'Code',
    commission: 'Commission %',
    discount: 'Buyer discount % (optional)',
    orders: 'Orders',
    earned: 'Commission',
    addCreator: 'Add the creator',
    pageLink: 'Private page of the new creator (shown once):',
    payouts: 'Payout report (CSV): GET /shawarma/creators/payouts.csv',
    fix: 'Check the fields marked below.',
    saved: 'Saved.',
  },
  ar: {
    title: 'التخفيضات وصناع المحتوى',
    recovery: 'السلال المتروكة',
    sent: 'التذكيرات المرسلة',
    recovered: 'الطلبات المستعادة',
    revenue: 'الإيرادات المستعادة',
    delay: 'التذكير بعد (دقائق؛ 0: أبداً)',
    reminderCoupon: 'الكوبون المذكور في التذكير (اختياري)',
    saveRecovery: 'حفظ إعدادات التذكير',
    sales: 'التخفيضات المؤقتة',
    noSales: 'لا توجد تخفيضات مجدولة.',
    name: 'الاسم',
    percent: 'نسبة الخصم',
    amount: 'مبلغ الخصم',
    amountHint: 'أدخل نسبة أو مبلغاً، وليس كليهما.',
    products: 'المنتجات',
    categories: 'التصنيفات',
    starts: 'يبدأ (بتوقيت المتجر)',
    ends: 'ينتهي (بتوقيت المتجر)',
    stackable: 'يُضاف إلى التخفيضات الأخرى',
    state: 'الحالة',
    states: { scheduled: 'مجدول', running: 'جارٍ', ended: 'منتهٍ' },
    schedule: 'جدولة التخفيض',
    remove: 'حذف',
    creators: 'صناع المحتوى',
    noCreators: 'لا يوجد صناع محتوى بعد.',
    code: 'الرمز',
    commission: 'العمولة ٪',
    discount: 'خصم المشتري ٪ (اختياري)',
    orders: 'الطلبات',
    earned: 'العمولة',
    addCreator: 'إضافة صانع المحتوى',
    pageLink: 'الصفحة الخاصة لصانع المحتوى الجديد (تظهر مرة واحدة):',
    payouts: 'تقرير المستحقات (CSV): GET /shawarma/creators/payouts.csv',
    fix: 'راجع الحقول المشار إليها أدناه.',
    saved: 'تم الحفظ.',
  },
};

export interface SaleForm {
  name: string;
  percent: string;
  amount: string;
  products: number[];
  categories: number[];
  starts_at: string;
  ends_at: string;
  stackable: boolean;
}
export interface CreatorForm {
  name: string;
  code: string;
  commission_percent: string;
  discount_percent: string;
}
export const emptySale: SaleForm = {
  name: '',
  percent: '',
  amount: '',
  products: [],
  categories: [],
  starts_at: '',
  ends_at: '',
  stackable: false,
};
export const emptyCreator: CreatorForm = { name: '', code: '', commission_percent: '', discount_percent: '' };

export interface RecoveryForm {
  minutes: string;
  coupon: string;
}

export interface GrowthPage {
  figures: ReminderFigures;
  recovery: { values: RecoveryForm; errors: Record<string, string> };
  sales: SaleView[];
  creators: CreatorView[];
  products: { id: number; name: string }[];
  categories: { id: number; name: string }[];
  sale: { values: SaleForm; errors: Record<string, string> };
  creator: { values: CreatorForm; errors: Record<string, string> };
  notice: string | null;
  pageUrl: string | null;
}

function field(
  prefix: string,
  errors: Record<string, string>,
  name: string,
  label: string,
  input: string,
  hint?: string,
) {
  const id = `${prefix}-${name}`;
  const err = errors[name];
  const described = [hint ? `${id}-hint` : '', err ? `${id}-error` : ''].filter(Boolean).join(' ');
  const withAria = input.replace(
    /<(input|select)/,
    `<$1 id="${id}"${described ? ` aria-describedby="${described}"` : ''}${err ? ' aria-invalid="true"' : ''}`,
  );
  return `<label for="${id}">${esc(label)}</label>${withAria}${hint ? `<span id="${id}-hint" class="hint">${esc(hint)}</span>` : ''}${err ? `<p id="${id}-error" class="field-error">${esc(err)}</p>` : ''}`;
}

export function growthView(s: Shell, p: GrowthPage): string {
  const t = T[s.locale];
  const when = (iso: string) => `<span class="num">${esc(formatDate(iso, s))}</span>`;
  const saleRows = p.sales
    .map(
      (sale) => `<tr><td>${esc(sale.name)}</td>
<td class="num">${esc(sale.percent !== null ? `${sale.percent}%` : (sale.amount ?? ''))}</td>
<td>${when(sale.starts_at)}</td><td>${when(sale.ends_at)}</td>
<td>${esc(t.states[sale.state])}${sale.stackable ? ' +' : ''}</td>
<td class="actions"><form method="post" action="/merchant/growth/sales/${sale.id}/delete">${tokenField(s.formToken)}<button type="submit" class="secondary" aria-label="${esc(`${t.remove} ${sale.name}`)}">${esc(t.remove)}</button></form></td></tr>`,
    )
    .join('');
  const creatorRows = p.creators
    .map(
      (c) => `<tr><td>${esc(c.name)}</td><td><code>${esc(c.code)}</code></td>
<td class="num">${esc(c.commission_percent)}%</td><td class="num">${esc(count(s, c.orders))}</td>
<td class="num"><bdi>${esc(c.revenue)} ${esc(c.currency)}</bdi></td><td class="num"><bdi>${esc(c.commission)} ${esc(c.currency)}</bdi></td></tr>`,
    )
    .join('');
  const sv = p.sale.values;
  const cv = p.creator.values;
  const options = (items: { id: number; name: string }[], chosen: number[]) =>
    items
      .map(
        (i) => `<option value="${i.id}"${chosen.includes(i.id) ? ' selected' : ''}>${esc(i.name)}</option>`,
      )
      .join('');
  const saleErrors = p.sale.errors;
  const creatorErrors = p.creator.errors;
  return shellPage(
    { ...s, current: 'growth' },
    t.title,
    `<h1>${esc(t.title)}</h1>${p.notice ? `<p class="notice" role="status">${esc(p.notice)}</p>` : ''}
${p.pageUrl ? `<p class="notice" role="status">${esc(t.pageLink)} <code dir="ltr">${esc(p.pageUrl)}</code></p>` : ''}
<section class="card" aria-labelledby="recovery-h"><h2 id="recovery-h">${esc(t.recovery)}</h2>
<dl><dt>${esc(t.sent)}</dt><dd data-figure="sent">${p.figures.reminders_sent}</dd>
<dt>${esc(t.recovered)}</dt><dd data-figure="recovered">${p.figures.checkouts_recovered}</dd>
<dt>${esc(t.revenue)}</dt><dd data-figure="revenue"><bdi>${esc(p.figures.revenue_recovered)} ${esc(p.figures.currency)}</bdi></dd></dl>
${Object.keys(p.recovery.errors).length ? `<p class="alert" role="alert">${esc(t.fix)}</p>` : ''}
<form method="post" action="/merchant/growth/settings" novalidate>${tokenField(s.formToken)}
${field('recovery', p.recovery.errors, 'abandoned_checkout_minutes', t.delay, `<input name="abandoned_checkout_minutes" inputmode="numeric" dir="ltr" required value="${esc(p.recovery.values.minutes)}">`)}
${field('recovery', p.recovery.errors, 'abandoned_checkout_coupon', t.reminderCoupon, `<input name="abandoned_checkout_coupon" dir="ltr" autocomplete="off" maxlength="100" value="${esc(p.recovery.values.coupon)}">`)}
<button type="submit">${esc(t.saveRecovery)}</button></form></section>
<section class="card" aria-labelledby="sales-h"><h2 id="sales-h">${esc(t.sales)}</h2>${
      p.sales.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.percent)} / ${esc(t.amount)}</th><th scope="col">${esc(t.starts)}</th><th scope="col">${esc(t.ends)}</th><th scope="col">${esc(t.state)}</th><th scope="col"></th></tr></thead><tbody>${saleRows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noSales)}</p>`
    }
${Object.keys(saleErrors).length ? `<p class="alert" role="alert">${esc(t.fix)}</p>` : ''}
<form method="post" action="/merchant/growth/sales" novalidate>${tokenField(s.formToken)}
${field('sale', saleErrors, 'name', t.name, `<input name="name" required maxlength="200" value="${esc(sv.name)}">`)}
${field('sale', saleErrors, 'percent', t.percent, `<input name="percent" inputmode="decimal" dir="ltr" value="${esc(sv.percent)}">`, t.amountHint)}
${field('sale', saleErrors, 'amount', t.amount, `<input name="amount" inputmode="decimal" dir="ltr" value="${esc(sv.amount)}">`)}
${field('sale', saleErrors, 'products', t.products, `<select name="products" multiple size="4">${options(p.products, sv.products)}</select>`)}
${field('sale', saleErrors, 'categories', t.categories, `<select name="categories" multiple size="3">${options(p.categories, sv.categories)}</select>`)}
${field('sale', saleErrors, 'starts_at', t.starts, `<input name="starts_at" type="datetime-local" dir="ltr" required value="${esc(sv.starts_at)}">`)}
${field('sale', saleErrors, 'ends_at', t.ends, `<input name="ends_at" type="datetime-local" dir="ltr" required value="${esc(sv.ends_at)}">`)}
<label class="check"><input type="checkbox" name="stackable" value="1"${sv.stackable ? ' checked' : ''}> ${esc(t.stackable)}</label>
<button type="submit">${esc(t.schedule)}</button></form></section>
<section class="card" aria-labelledby="creators-h"><h2 id="creators-h">${esc(t.creators)}</h2>${
      p.creators.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.code)}</th><th scope="col">${esc(t.commission)}</th><th scope="col">${esc(t.orders)}</th><th scope="col">${esc(t.revenue)}</th><th scope="col">${esc(t.earned)}</th></tr></thead><tbody>${creatorRows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noCreators)}</p>`
    }
<p class="hint">${esc(t.payouts)}</p>
${Object.keys(creatorErrors).length ? `<p class="alert" role="alert">${esc(t.fix)}</p>` : ''}
<form method="post" action="/merchant/growth/creators" novalidate>${tokenField(s.formToken)}
${field('creator', creatorErrors, 'name', t.name, `<input name="name" required maxlength="200" value="${esc(cv.name)}">`)}
${field('creator', creatorErrors, 'code', t.code, `<input name="code" dir="ltr" autocomplete="off" required maxlength="100" value="${esc(cv.code)}">`)}
${field('creator', creatorErrors, 'commission_percent', t.commission, `<input name="commission_percent" inputmode="decimal" dir="ltr" required value="${esc(cv.commission_percent)}">`)}
${field('creator', creatorErrors, 'discount_percent', t.discount, `<input name="discount_percent" inputmode="decimal" dir="ltr" value="${esc(cv.discount_percent)}">`)}
<button type="submit">${esc(t.addCreator)}</button></form></section>`,
  );
}

export const savedNotice = (locale: 'ar' | 'en') => T[locale].saved;
export { formatDate };
