import type { PublicErrorCode } from '../error-codes';

/**
 * What a buyer reads from the API and the messages sent to their phone, in Arabic. English is the
 * default and stays exactly the text the spec fixes (the error's own message); Arabic is chosen by
 * `Accept-Language` (api/pay/i18n.ts `fromAcceptLanguage`, the rule of the buyer pages) on the Embed and
 * Storefront APIs, and by the language of the sign-in or checkout request for the OTP and delivery
 * messages. The Arabic of the pages themselves is in api/pay/i18n.ts and api/dashboard/i18n.ts; this file
 * is the part the workers send too, so it lives in shared/.
 */

export type BuyerLocale = 'ar' | 'en';

/** Codes of the spec (upper case) and of shared/error-codes.ts (lower case) that a buyer may see. */
export type TranslatedCode =
  | PublicErrorCode
  | 'PHONE_BLOCKED'
  | 'RATE_LIMIT_EXCEEDED'
  | 'COOLDOWN_ACTIVE'
  | 'SESSION_EXPIRED'
  | 'INVALID_CODE'
  | 'MAX_ATTEMPTS_REACHED';

type Params = Record<string, string | number | null | undefined>;

/** Arabic of every code a buyer may meet; `p` holds the error's params and extra fields. */
export const ERROR_MESSAGES_AR: Record<TranslatedCode, (p: Params) => string> = {
  validation_failed: () => 'الطلب غير صالح',
  malformed_json: () => 'نص الطلب ليس JSON صالحاً',
  unsupported_media_type: () => 'نوع المحتوى غير مدعوم',
  payload_too_large: () => 'نص الطلب كبير جداً',
  method_not_allowed: () => 'هذه الطريقة غير مسموحة لهذا المسار',
  method_not_implemented: () => 'هذه الطريقة غير مدعومة',
  not_found: () => 'غير موجود',
  invalid_request: () => 'لا يمكن تنفيذ هذا الطلب',
  unauthenticated: () => 'يلزم تسجيل الدخول',
  forbidden: () => 'غير مسموح',
  rate_limited: () => 'طلبات كثيرة. أعد المحاولة لاحقاً.',
  conflict: () => 'تعارض مع حالة حالية، أعد المحاولة',
  service_unavailable: () => 'الخدمة غير متاحة مؤقتاً، أعد المحاولة بعد قليل',
  internal_error: () => 'حدث خطأ في الخادم',
  embed_key_required: () => 'مفتاح التضمين مطلوب',
  embed_key_invalid: () => 'مفتاح التضمين غير صحيح',
  origin_not_allowed: () => 'هذا الموقع غير مسموح له بالشراء من هذا المتجر',
  token_ability_missing: () => 'الرمز لا يملك الصلاحية المطلوبة',
  token_not_for_product: () => 'الرمز غير صالح لهذا المنتج',
  product_not_found: () => 'المنتج غير موجود',
  session_not_found: () => 'الجلسة غير موجودة',
  session_already_verified: () => 'تم التحقق من هذه الجلسة مسبقاً',
  session_invalid: () => 'الجلسة غير صالحة أو منتهية',
  registration_not_allowed: () => 'لا يمكن التسجيل بهذه الجلسة',
  out_of_stock: () => 'الكمية المطلوبة غير متوفرة',
  no_payment_method: () => 'لا توجد طريقة دفع متاحة لهذا الطلب',
  coupon_invalid: () => 'كوبون غير صالح',
  coupon_not_active: () => 'الكوبون غير مفعّل',
  coupon_exhausted: () => 'وصل الكوبون إلى الحد الأقصى للاستخدام',
  coupon_minimum_order: (p) => `الحد الأدنى لقيمة الطلب ${p.amount ?? ''}`.trim(),
  coupon_not_for_product: () => 'هذا الكوبون غير صالح لهذا المنتج',
  checkout_not_found: () => 'جلسة الدفع منتهية أو غير موجودة',
  order_already_created: () => 'تم إنشاء الطلب لهذه الجلسة مسبقاً',
  checkout_blocked: () => 'لا يمكن إتمام هذا الطلب',
  payment_method_not_configured: () => 'طريقة الدفع غير مفعّلة لهذا المتجر',
  payment_method_not_allowed_by_coupon: () => 'لا يمكن استخدام الكوبون مع طريقة الدفع هذه',
  payment_method_amount_out_of_range: () => 'طريقة الدفع هذه غير متاحة لهذا المبلغ',
  store_not_resolved: () => 'تعذر تحديد المتجر من الطلب',
  wishlist_already_added: () => 'المنتج موجود في قائمة الأمنيات',
  wishlist_item_not_found: () => 'المنتج ليس في قائمة الأمنيات',
  merchant_plan_required: () => 'واجهة التاجر تتطلب باقة مدفوعة',
  webhook_endpoint_not_found: () => 'نقطة الويب هوك غير موجودة',
  webhook_event_type_invalid: () => 'نوع الحدث غير معروف',
  PHONE_BLOCKED: () => 'رقم الجوال هذا محظور.',
  RATE_LIMIT_EXCEEDED: (p) =>
    p.retry_after
      ? `طلبات كثيرة. أعد المحاولة بعد ${p.retry_after} ثانية.`
      : 'طلبات كثيرة. أعد المحاولة لاحقاً.',
  COOLDOWN_ACTIVE: (p) =>
    p.retry_after ? `انتظر ${p.retry_after} ثانية قبل طلب رمز جديد.` : 'انتظر قبل طلب رمز جديد.',
  SESSION_EXPIRED: () => 'انتهت صلاحية الجلسة. ابدأ من جديد.',
  INVALID_CODE: (p) =>
    typeof p.remaining_attempts === 'number'
      ? `رمز التحقق غير صحيح. المحاولات المتبقية: ${p.remaining_attempts}.`
      : 'رمز التحقق غير صحيح.',
  MAX_ATTEMPTS_REACHED: () => 'استُنفدت المحاولات. اطلب رمزاً جديداً.',
};

/** The message a buyer reads: the error's own (English) text, or its Arabic by code. */
export function buyerErrorMessage(
  locale: BuyerLocale,
  code: TranslatedCode,
  english: string,
  params: Params = {},
): string {
  if (locale === 'en') return english;
  return ERROR_MESSAGES_AR[code](params);
}

/** The OTP message; the only run of exactly four digits is the code (docs/operations.md). */
export function otpMessageText(code: string, locale: BuyerLocale = 'en'): string {
  return locale === 'ar'
    ? `رمز التحقق الخاص بك هو ${code}. لا تشاركه مع أي أحد.`
    : `Your verification code is ${code}. Do not share it with anyone.`;
}

/** The first line of the delivery message (the keys follow, one per line); the store's order number. */
export function deliveryHeadline(storeName: string, orderNumber: number, locale: BuyerLocale = 'en'): string {
  return locale === 'ar'
    ? `${storeName}: طلبك رقم #${orderNumber} جاهز.`
    : `${storeName}: your order #${orderNumber} is ready.`;
}

/** The success messages of the Embed and Storefront APIs, by their English text (the default). */
export const SUCCESS_MESSAGES_AR: Readonly<Record<string, string>> = {
  'Product added to wishlist': 'أُضيف المنتج إلى قائمة الأمنيات',
  'Product removed from wishlist': 'أُزيل المنتج من قائمة الأمنيات',
  'Wishlist cleared': 'أُفرغت قائمة الأمنيات',
  'A new verification code has been sent by SMS.': 'أُرسل رمز تحقق جديد برسالة نصية.',
  'Order created successfully': 'تم إنشاء الطلب بنجاح',
};

/** A success message in the buyer's language; English (and any message without Arabic) as it is. */
export function buyerSuccessMessage(locale: BuyerLocale, english: string): string {
  return locale === 'ar' ? (SUCCESS_MESSAGES_AR[english] ?? english) : english;
}
