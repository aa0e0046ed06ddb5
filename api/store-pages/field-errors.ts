import type { CustomField } from '../../db/models';
import type { Locale } from '../pay/i18n';

/**
 * The hosted checkout's message beside each refused field, in the page's language (docs/store-pages.md,
 * "Checkout"). The checks themselves are the Embed API's (its schema and the custom field rules of
 * shared/services/custom-fields), whose messages are English: an English page shows them as they are, an
 * Arabic page the Arabic message for that field and what was wrong with it (missing, or not a valid
 * value of the field's kind).
 */

const AR = {
  required: 'هذا الحقل مطلوب.',
  invalid: 'تحقّق من هذه القيمة.',
  customer_first_name: 'أدخل الاسم الأول.',
  customer_last_name: 'أدخل اسم العائلة.',
  customer_email: 'أدخل بريدًا إلكترونيًا صحيحًا، مثل name@example.com.',
  customer_phone: 'أدخل رقم جوال صحيحًا بالأرقام.',
  customer_country_code: 'أدخل رمز دولة صحيحًا بالأرقام، مثل 966.',
  quantity: 'أدخل كمية صحيحة ضمن الحد المسموح للطلب.',
  coupon_code: 'كود الخصم غير صالح.',
  payment_method: 'اختر طريقة دفع.',
  subscription_plan: 'اختر خطة الاشتراك.',
  kinds: {
    text: 'النص أطول من المسموح.',
    number: 'أدخل رقمًا.',
    date: 'أدخل تاريخًا صحيحًا.',
    datetime: 'أدخل تاريخًا ووقتًا صحيحين.',
    color: 'اختر لونًا صحيحًا.',
    select: 'اختر أحد الخيارات.',
    image: 'الصورة غير مقبولة: JPG أو PNG أو GIF حتى 10 ميغابايت.',
    file: 'الملف غير مقبول: PDF أو DOC أو DOCX أو TXT أو ZIP حتى 20 ميغابايت.',
  } as Record<string, string>,
} as const;

/** A message of the checks that says the value is missing. */
const MISSING = /\b(is required|is not allowed to be empty|must not be empty)\b/i;

/** Where the form field `key` (`customer_email`, `fields.2`, `field_files.1`, ...) was refused. */
export function fieldMessage(
  locale: Locale,
  key: string,
  message: string,
  fields: readonly CustomField[],
  value: string | undefined,
): string {
  if (locale === 'en') return message;
  const custom = /^(fields|field_files)\.(\d+)$/.exec(key);
  const missing = MISSING.test(message) || (value !== undefined && value.trim() === '');
  if (custom) {
    const field = fields[Number(custom[2])];
    if (missing) return AR.required;
    return (field && AR.kinds[field.type]) ?? AR.invalid;
  }
  const known = (AR as unknown as Record<string, string | undefined>)[key];
  if (missing && key !== 'payment_method' && key !== 'subscription_plan') return AR.required;
  return typeof known === 'string' ? known : AR.invalid;
}
