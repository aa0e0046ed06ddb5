import type { RevealAnswer } from '../../shared/services/reveal/reveal';
import { escapeHtml } from './html';
import type { Locale } from './i18n';

/**
 * The hosted payment page's part of "the goods after paying" (docs/widget.md): the code keys, license
 * keys and download links shown to the browser that paid (its reveal cookie), and the words of a page
 * whose order was refunded or cancelled.
 */

const TEXT = {
  en: {
    yourGoods: 'Your purchase',
    shownUntil: 'Shown here for 30 minutes after payment, on this browser only.',
    alsoSent: 'Also sent to:',
    download: 'Download',
    refundedTitle: 'This order was refunded',
    cancelledTitle: 'This order was cancelled',
    refunded: 'The payment was returned. What was bought is no longer available.',
    cancelled: 'The order was cancelled. What was bought is no longer available.',
    soldOutTitle: 'Sold out while you were paying',
    soldOut:
      'The last one was sold before your payment arrived, so nothing was delivered. Your payment is being refunded in full; you will get a message once it is back.',
  },
  ar: {
    yourGoods: 'مشترياتك',
    shownUntil: 'تظهر هنا لمدة 30 دقيقة بعد الدفع، وعلى هذا المتصفح فقط.',
    alsoSent: 'أرسلناها أيضًا إلى:',
    download: 'تنزيل',
    refundedTitle: 'تم استرداد مبلغ هذا الطلب',
    cancelledTitle: 'تم إلغاء هذا الطلب',
    refunded: 'أُعيد المبلغ المدفوع، ولم تعد المشتريات متاحة.',
    cancelled: 'أُلغي الطلب، ولم تعد المشتريات متاحة.',
    soldOutTitle: 'نفدت الكمية أثناء الدفع',
    soldOut:
      'بيعت آخر قطعة قبل وصول دفعتك، فلم يُسلَّم شيء. يجري استرداد المبلغ كاملًا، وستصلك رسالة عند إعادته.',
  },
} satisfies Record<Locale, unknown>;

/** The goods block of the success page (empty unless the answer is `shown` with something to show). */
export function goodsHtml(answer: RevealAnswer | null, locale: Locale): string {
  if (!answer || answer.state !== 'shown') return '';
  const t = TEXT[locale];
  const items = answer.items
    .map(
      (item) => `<section class="goods"><h3><bdi>${escapeHtml(item.name)}</bdi></h3>
${[...item.codes, ...item.license_keys].map((k) => `<p><code class="ltr" dir="ltr" data-key>${escapeHtml(k)}</code></p>`).join('\n')}
${item.downloads.map((d) => `<p><a class="button secondary" href="${escapeHtml(d.url)}">${escapeHtml(t.download)} <bdi>${escapeHtml(d.name)}</bdi></a></p>`).join('\n')}</section>`,
    )
    .join('\n');
  const where = [answer.sent_to.phone, answer.sent_to.email].filter((x): x is string => !!x);
  return `<div data-goods data-order-number="${answer.order_number}">
<h2>${escapeHtml(t.yourGoods)}</h2>
${items}
${where.length ? `<p class="muted">${escapeHtml(t.alsoSent)} ${where.map((w) => `<span dir="ltr" class="ltr" data-sent-to>${escapeHtml(w)}</span>`).join(' · ')}</p>` : ''}
<p class="muted">${escapeHtml(t.shownUntil)}</p></div>`;
}

/** A refunded (6) or cancelled (5) order's page: no "payment received", no goods. */
export function withdrawnText(
  status: 5 | 6,
  locale: Locale,
  soldOut = false,
): { title: string; message: string } {
  const t = TEXT[locale];
  if (soldOut) return { title: t.soldOutTitle, message: t.soldOut };
  return status === 6
    ? { title: t.refundedTitle, message: t.refunded }
    : { title: t.cancelledTitle, message: t.cancelled };
}
