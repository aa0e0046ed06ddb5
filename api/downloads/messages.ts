import type { Refusal } from '../../shared/services/files/downloads';
import type { Locale } from '../pay/i18n';

/** What a buyer reads when a download address refuses, in Arabic and English (docs/downloads.md). */
export const REFUSAL_TEXT: Record<Locale, Record<Refusal, { title: string; message: string }>> = {
  en: {
    forged: {
      title: 'Invalid download link',
      message: 'This download link is not valid. Use the link exactly as it was sent to you.',
    },
    not_paid: {
      title: 'Order not paid',
      message: 'This order is not paid yet. The download opens once the payment is confirmed.',
    },
    cancelled: {
      title: 'Order cancelled',
      message: 'This order was cancelled, so its downloads are no longer available.',
    },
    refunded: {
      title: 'Order refunded',
      message: 'This order was refunded, so its downloads are no longer available.',
    },
    limit: {
      title: 'Download limit reached',
      message:
        'You have downloaded this file as many times as the store allows. Contact the store to download it again.',
    },
    gone: {
      title: 'File no longer available',
      message: 'This file is no longer part of your order. Contact the store if you need it.',
    },
  },
  ar: {
    forged: {
      title: 'رابط تنزيل غير صالح',
      message: 'رابط التنزيل هذا غير صالح. استخدم الرابط كما أُرسل إليك تماماً.',
    },
    not_paid: {
      title: 'الطلب غير مدفوع',
      message: 'لم يُدفع هذا الطلب بعد. يتاح التنزيل بعد تأكيد الدفع.',
    },
    cancelled: {
      title: 'الطلب ملغى',
      message: 'أُلغي هذا الطلب، لذا لم تعد تنزيلاته متاحة.',
    },
    refunded: {
      title: 'الطلب مسترد',
      message: 'استُرد مبلغ هذا الطلب، لذا لم تعد تنزيلاته متاحة.',
    },
    limit: {
      title: 'بلغت حد التنزيل',
      message: 'نزّلت هذا الملف العدد الأقصى من المرات الذي يسمح به المتجر. تواصل مع المتجر لتنزيله مرة أخرى.',
    },
    gone: {
      title: 'الملف لم يعد متاحاً',
      message: 'لم يعد هذا الملف ضمن طلبك. تواصل مع المتجر إن احتجت إليه.',
    },
  },
};

/** The machine-readable code of each refusal (JSON answers). */
export const REFUSAL_CODE: Record<Refusal, string> = {
  forged: 'download_link_invalid',
  not_paid: 'order_not_paid',
  cancelled: 'order_cancelled',
  refunded: 'order_refunded',
  limit: 'download_limit_reached',
  gone: 'download_unavailable',
};
