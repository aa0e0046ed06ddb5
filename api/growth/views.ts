import { escapeHtml, type HtmlAnswer, layout } from '../pay/html';
import type { Locale } from '../pay/i18n';
import type { CreatorMonth } from '../../shared/services/growth/creator-reports';

/** The buyer's reminder pages and the creator's private page, Arabic (right to left) and English. */

export interface GrowthView {
  locale: Locale;
  switchHref: string;
  path: string;
}

const T = {
  en: {
    paidTitle: 'This order is paid',
    paid: 'Thank you: this order has been paid already.',
    goneTitle: 'This order cannot be completed',
    gone: 'What you chose is no longer available as it was. Please visit the store again.',
    notFoundTitle: 'Link not found',
    notFound: 'This link is not valid.',
    optOutTitle: 'Stop reminders',
    optOutAsk: (store: string) => `Stop reminders about unpaid orders from ${store}?`,
    optOutButton: 'Stop reminders',
    optedOut: (store: string) => `Done: ${store} will not send you reminders about unpaid orders again.`,
    creatorTitle: (name: string) => `${name}: your creator code`,
    month: 'Month',
    orders: 'Orders',
    revenue: 'Revenue',
    commission: 'Commission',
    totals: 'All time',
    none: 'No orders yet.',
    code: 'Code',
    store: 'Store',
  },
  ar: {
    paidTitle: 'تم دفع هذا الطلب',
    paid: 'شكراً لك: تم دفع هذا الطلب مسبقاً.',
    goneTitle: 'لا يمكن إكمال هذا الطلب',
    gone: 'ما اخترته لم يعد متاحاً كما كان. يرجى زيارة المتجر مرة أخرى.',
    notFoundTitle: 'الرابط غير موجود',
    notFound: 'هذا الرابط غير صالح.',
    optOutTitle: 'إيقاف التذكير',
    optOutAsk: (store: string) => `هل تريد إيقاف التذكير بالطلبات غير المدفوعة من ${store}؟`,
    optOutButton: 'إيقاف التذكير',
    optedOut: (store: string) => `تم: لن يرسل لك ${store} تذكيراً بالطلبات غير المدفوعة مرة أخرى.`,
    creatorTitle: (name: string) => `${name}: رمز صانع المحتوى`,
    month: 'الشهر',
    orders: 'الطلبات',
    revenue: 'الإيرادات',
    commission: 'العمولة',
    totals: 'الإجمالي',
    none: 'لا توجد طلبات بعد.',
    code: 'الرمز',
    store: 'المتجر',
  },
};

function page(view: GrowthView, title: string, body: string): string {
  return layout(title, body, { locale: view.locale, switchHref: view.switchHref });
}

const message = (view: GrowthView, status: number, title: string, text: string): HtmlAnswer => ({
  status,
  html: page(view, title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>`),
});

export function resumeView(
  view: GrowthView,
  answer: { kind: 'paid' } | { kind: 'gone'; reason: string } | { kind: 'not_found' },
): HtmlAnswer {
  const t = T[view.locale];
  if (answer.kind === 'paid') return message(view, 200, t.paidTitle, t.paid);
  if (answer.kind === 'gone') return message(view, 410, t.goneTitle, t.gone);
  return message(view, 404, t.notFoundTitle, t.notFound);
}

export function optOutAskView(view: GrowthView, storeName: string | null): HtmlAnswer {
  const t = T[view.locale];
  if (storeName === null) return message(view, 404, t.notFoundTitle, t.notFound);
  return {
    status: 200,
    html: page(
      view,
      t.optOutTitle,
      `<h1>${escapeHtml(t.optOutTitle)}</h1><p>${escapeHtml(t.optOutAsk(storeName))}</p>` +
        `<form method="post" action="${escapeHtml(view.path)}?lang=${view.locale}"><button type="submit">${escapeHtml(t.optOutButton)}</button></form>`,
    ),
  };
}

export function optedOutView(view: GrowthView, storeName: string | null): HtmlAnswer {
  const t = T[view.locale];
  if (storeName === null) return message(view, 404, t.notFoundTitle, t.notFound);
  return message(view, 200, t.optOutTitle, t.optedOut(storeName));
}

export function creatorPageView(
  view: GrowthView,
  found: {
    name: string;
    code: string;
    storeName: string;
    months: CreatorMonth[];
    totals: { orders: number; revenue: string; commission: string };
    currency: string;
  } | null,
): HtmlAnswer {
  const t = T[view.locale];
  if (!found) return message(view, 404, t.notFoundTitle, t.notFound);
  const money = (v: string) => `<bdi>${escapeHtml(v)} ${escapeHtml(found.currency)}</bdi>`;
  const rows = found.months
    .map(
      (m) =>
        `<tr><th scope="row"><bdi>${escapeHtml(m.month)}</bdi></th><td>${m.orders}</td><td>${money(m.revenue)}</td><td>${money(m.commission)}</td></tr>`,
    )
    .join('');
  const table =
    found.months.length === 0
      ? `<p class="muted">${escapeHtml(t.none)}</p>`
      : `<table><caption>${escapeHtml(t.creatorTitle(found.name))}</caption><thead><tr><th scope="col">${escapeHtml(t.month)}</th><th scope="col">${escapeHtml(t.orders)}</th><th scope="col">${escapeHtml(t.revenue)}</th><th scope="col">${escapeHtml(t.commission)}</th></tr></thead><tbody>${rows}</tbody></table>`;
  return {
    status: 200,
    html: page(
      view,
      t.creatorTitle(found.name),
      `<h1>${escapeHtml(t.creatorTitle(found.name))}</h1>` +
        `<dl><dt>${escapeHtml(t.store)}</dt><dd>${escapeHtml(found.storeName)}</dd><dt>${escapeHtml(t.code)}</dt><dd><bdi>${escapeHtml(found.code)}</bdi></dd>` +
        `<dt>${escapeHtml(t.orders)}</dt><dd>${found.totals.orders}</dd><dt>${escapeHtml(t.revenue)}</dt><dd>${money(found.totals.revenue)}</dd>` +
        `<dt>${escapeHtml(t.commission)}</dt><dd>${money(found.totals.commission)}</dd></dl>` +
        `<h2>${escapeHtml(t.totals)}</h2>${table}`,
    ),
  };
}
