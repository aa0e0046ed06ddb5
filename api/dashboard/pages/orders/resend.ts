import { esc, tokenField } from '../../layout';
import type { Shell } from '../../view-parts';
import type { OrderEmail } from '../../../../shared/services/emails';
import { resendNonce } from '../../../../shared/services/fulfilment/resend';

/**
 * The order page's "send the delivery again" card and the e-mail list's purposes, in English and Arabic
 * (kept with the page rather than in i18n.ts). The forms post to /merchant/orders/{id}/resend with the
 * CSRF token and a nonce drawn for this render: a double click sends once (shared/services/fulfilment/
 * resend.ts).
 */
const STRINGS = {
  en: {
    title: 'Send the delivery again',
    intro: 'Sends the buyer every key, license key and download address of the order again, as they are now.',
    byMessage: 'Resend by message',
    byEmail: 'Resend by e-mail',
    noEmail: 'The buyer gave no e-mail address.',
    queued: {
      message: 'The delivery is on its way again by message.',
      email: 'The delivery is on its way again by e-mail.',
    },
    duplicate: 'That resend was sent already.',
    refused: {
      stale_form: 'Open the order page again and resend.',
      not_paid: 'Only a paid order (In progress or Completed) has a delivery to send.',
      no_email: 'The buyer gave no e-mail address.',
      nothing_to_send: 'This order has no keys, licenses or files to send.',
    },
    purpose: {
      order_delivery: 'Delivery',
      refund: 'Refund',
      subscription_renewed: 'Subscription renewal',
      renewal_failed: 'Failed renewal',
      price_change: 'Price change',
      sign_in: 'Sign-in link',
    } as Record<string, string>,
  },
  ar: {
    title: 'إعادة إرسال التسليم',
    intro: 'يرسل إلى المشتري مجدداً كل مفاتيح الطلب ومفاتيح التراخيص وروابط التنزيل كما هي الآن.',
    byMessage: 'إعادة الإرسال برسالة',
    byEmail: 'إعادة الإرسال بالبريد الإلكتروني',
    noEmail: 'لم يذكر المشتري بريداً إلكترونياً.',
    queued: { message: 'أُعيد إرسال التسليم برسالة.', email: 'أُعيد إرسال التسليم بالبريد الإلكتروني.' },
    duplicate: 'أُرسلت هذه الإعادة من قبل.',
    refused: {
      stale_form: 'افتح صفحة الطلب مجدداً ثم أعد الإرسال.',
      not_paid: 'لا يُعاد إرسال التسليم إلا لطلب مدفوع (قيد التنفيذ أو مكتمل).',
      no_email: 'لم يذكر المشتري بريداً إلكترونياً.',
      nothing_to_send: 'لا مفاتيح ولا تراخيص ولا ملفات في هذا الطلب لإرسالها.',
    },
    purpose: {
      order_delivery: 'التسليم',
      refund: 'استرداد',
      subscription_renewed: 'تجديد الاشتراك',
      renewal_failed: 'تعذّر التجديد',
      price_change: 'تغيير السعر',
      sign_in: 'رابط الدخول',
    } as Record<string, string>,
  },
};

export const resendStrings = (s: Pick<Shell, 'locale'>) => STRINGS[s.locale === 'ar' ? 'ar' : 'en'];

/** The card with its two buttons (the e-mail one only when the buyer gave an address). */
export function resendSection(s: Shell, orderId: number, hasEmail: boolean): string {
  const t = resendStrings(s);
  const nonce = resendNonce();
  const form = (channel: 'message' | 'email', label: string): string =>
    `<form method="post" action="/merchant/orders/${orderId}/resend">${tokenField(s.formToken)}<input type="hidden" name="channel" value="${channel}"><input type="hidden" name="nonce" value="${nonce}"><button type="submit">${esc(label)}</button></form>`;
  return `<section class="card actions" data-resend><h2>${esc(t.title)}</h2><p class="muted">${esc(t.intro)}</p>${form('message', t.byMessage)}${
    hasEmail ? form('email', t.byEmail) : `<p class="muted">${esc(t.noEmail)}</p>`
  }</section>`;
}

/** What an e-mail was for, in the page's language. */
export const emailPurpose = (s: Pick<Shell, 'locale'>, e: Pick<OrderEmail, 'purpose'>): string =>
  resendStrings(s).purpose[e.purpose] ?? e.purpose;
