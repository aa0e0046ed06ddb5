import type { ClaimableKey, ClaimView } from '../../shared/services/fraud/claims';
import { escapeHtml, HtmlAnswer, layout } from '../pay/html';
import type { Locale } from '../pay/i18n';

/** The buyer's key claim page (docs/fraud.md, "Key replacement claims"), Arabic and English. */

export const CLAIM_STRINGS = {
  en: {
    title: 'A key does not work',
    intro: (store: string, order: number) => `${store}, order #${order}`,
    key: 'Key',
    product: 'Product',
    note: 'What happens when you use the key? (optional)',
    submit: 'Report this key',
    history: 'Your claims on this key',
    none: 'No claim yet.',
    status: { open: 'Waiting for the store', approved: 'Replaced', declined: 'Declined' },
    replacement: 'New key',
    storeNote: 'Note from the store',
    yourNote: 'Your note',
    sent: 'Your claim was sent to the store. You will get its answer by message and e-mail.',
    invalid: 'This claim link is not valid.',
    closed:
      'This key cannot be claimed (the order is not paid, was disputed, or the key already has a claim).',
    exists: 'This key already has a claim.',
  },
  ar: {
    title: 'مفتاح لا يعمل',
    intro: (store: string, order: number) => `${store}، الطلب رقم ${order}`,
    key: 'المفتاح',
    product: 'المنتج',
    note: 'ماذا يحدث عند استخدام المفتاح؟ (اختياري)',
    submit: 'أبلغ عن هذا المفتاح',
    history: 'طلباتك على هذا المفتاح',
    none: 'لا يوجد طلب بعد.',
    status: { open: 'بانتظار المتجر', approved: 'تم الاستبدال', declined: 'مرفوض' },
    replacement: 'المفتاح الجديد',
    storeNote: 'ملاحظة من المتجر',
    yourNote: 'ملاحظتك',
    sent: 'تم إرسال طلبك إلى المتجر. سيصلك الرد برسالة وبريد إلكتروني.',
    invalid: 'رابط الطلب غير صالح.',
    closed: 'لا يمكن الإبلاغ عن هذا المفتاح (الطلب غير مدفوع أو عليه اعتراض أو للمفتاح طلب قائم).',
    exists: 'لهذا المفتاح طلب قائم.',
  },
} as const;

export interface ClaimPageView {
  locale: Locale;
  switchHref: string;
}

function history(t: (typeof CLAIM_STRINGS)[Locale], claims: readonly ClaimView[]): string {
  if (claims.length === 0) return `<p class="muted">${escapeHtml(t.none)}</p>`;
  return claims
    .map((c) => {
      const rows = [
        `<dt>${escapeHtml(t.key)}</dt><dd><bdi>${escapeHtml(c.code)}</bdi></dd>`,
        c.buyer_note ? `<dt>${escapeHtml(t.yourNote)}</dt><dd>${escapeHtml(c.buyer_note)}</dd>` : '',
        c.replacement_code
          ? `<dt>${escapeHtml(t.replacement)}</dt><dd><bdi class="replacement">${escapeHtml(c.replacement_code)}</bdi></dd>`
          : '',
        c.merchant_note ? `<dt>${escapeHtml(t.storeNote)}</dt><dd>${escapeHtml(c.merchant_note)}</dd>` : '',
      ].join('');
      return `<section class="claim" data-status="${c.status}"><h3>${escapeHtml(t.status[c.status])} · <time datetime="${c.created_at}">${c.created_at.slice(0, 10)}</time></h3><dl>${rows}</dl></section>`;
    })
    .join('');
}

export function claimPage(
  view: ClaimPageView,
  key: ClaimableKey,
  token: string,
  opts: { status?: number; notice?: string; error?: string } = {},
): HtmlAnswer {
  const t = CLAIM_STRINGS[view.locale];
  const form = key.claimable
    ? `<form method="post" action="/claims">
<input type="hidden" name="t" value="${escapeHtml(token)}">
<input type="hidden" name="lang" value="${view.locale}">
<label for="claim-note">${escapeHtml(t.note)}</label>
<textarea id="claim-note" name="note" rows="3" maxlength="1000" style="width:100%;box-sizing:border-box"></textarea>
<button type="submit">${escapeHtml(t.submit)}</button>
</form>`
    : '';
  const body = `<h1>${escapeHtml(t.title)}</h1>
<p class="muted">${escapeHtml(t.intro(key.storeName, key.orderId))}</p>
${opts.notice ? `<p class="ok" role="status">${escapeHtml(opts.notice)}</p>` : ''}
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<dl><dt>${escapeHtml(t.product)}</dt><dd>${escapeHtml(key.productName)}</dd><dt>${escapeHtml(t.key)}</dt><dd><bdi>${escapeHtml(key.code)}</bdi></dd></dl>
${form}
<h2>${escapeHtml(t.history)}</h2>
${history(t, key.claims)}`;
  return {
    status: opts.status ?? 200,
    html: layout(t.title, body, { locale: view.locale, switchHref: view.switchHref }),
  };
}

export function invalidClaimPage(view: ClaimPageView): HtmlAnswer {
  const t = CLAIM_STRINGS[view.locale];
  const body = `<h1>${escapeHtml(t.title)}</h1><p class="error">${escapeHtml(t.invalid)}</p>`;
  return { status: 404, html: layout(t.title, body, { locale: view.locale, switchHref: view.switchHref }) };
}
