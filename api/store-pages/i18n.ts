import type { AppContext } from '../context';
import { fromAcceptLanguage, type Locale } from '../pay/i18n';

/**
 * The store pages' words in Arabic and English (docs/store-pages.md). The language is the address's
 * `?lang=ar|en` (each language has its own address, so search engines index both and a CDN caches each),
 * else the reader's Accept-Language (the answer then varies on it), else the store's own language.
 */

export function pageLocale(ctx: AppContext, storeLocale: unknown): { locale: Locale; explicit: boolean } {
  const asked = ctx.query.lang;
  if (asked === 'ar' || asked === 'en') return { locale: asked, explicit: true };
  const header = fromAcceptLanguage(ctx.get('Accept-Language'));
  return { locale: header ?? (storeLocale === 'ar' ? 'ar' : 'en'), explicit: false };
}

/** The text for a reader of `locale`: the Arabic one for Arabic readers when set, else the other. */
export function pick(locale: Locale, en: string | null | undefined, ar: string | null | undefined): string {
  const first = locale === 'ar' ? ar : en;
  const second = locale === 'ar' ? en : ar;
  return (first && first.trim()) || (second && second.trim()) || '';
}

const en = {
  dir: 'ltr' as 'ltr' | 'rtl',
  otherLanguage: 'العربية',
  home: 'Home',
  categories: 'Categories',
  products: 'Products',
  allProducts: 'All products',
  search: 'Search',
  searchLabel: 'Search the store',
  searchTitle: (q: string) => (q ? `Results for “${q}”` : 'Search'),
  noResults: 'No product matches your search.',
  noProducts: 'No products on sale yet.',
  policies: 'Policies',
  policiesTitle: 'Store policies',
  noPolicies: 'This store has not written its policies yet.',
  inStock: 'In stock',
  fewLeft: (n: number) => `Only ${n} left`,
  soldOut: 'Sold out',
  onSale: 'On sale',
  was: 'Was',
  buy: 'Buy now',
  unavailable: 'Unavailable',
  description: 'Description',
  options: 'What you choose at checkout',
  plans: 'Plans',
  reviews: 'Reviews',
  noReviews: 'No reviews yet.',
  verified: 'Verified purchase',
  ratingOf: (avg: string, count: number) =>
    `${avg} out of 5 (${count} ${count === 1 ? 'review' : 'reviews'})`,
  stars: (n: number) => `${n} out of 5 stars`,
  required: 'required',
  optional: 'optional',
  notFoundTitle: 'Page not found',
  notFound: 'This page does not exist or the product is no longer on sale.',
  backToStore: 'Back to the store',
  checkoutTitle: 'Checkout',
  yourDetails: 'Your details',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'E-mail',
  countryCode: 'Country code',
  phone: 'Mobile number',
  phoneHint: 'Your goods and receipt are sent to this number and e-mail.',
  quantity: 'Quantity',
  plan: 'Plan',
  coupon: 'Coupon code',
  note: 'Note to the store',
  details: 'Product details',
  paymentMethod: 'Payment method',
  continueToPay: 'Continue to payment',
  noMethods: 'This store cannot take payments for this product right now.',
  fixErrors: 'Please correct the marked fields.',
  chooseOption: 'Choose…',
  fileHint: (accept: string[], mb: number) => `${accept.join(', ')}; up to ${mb} MB`,
  secure: 'You pay on the payment provider’s page; we never see your card.',
  total: 'Price',
  poweredBy: 'Store on Matjar',
  durations: { monthly: 'month', quarterly: '3 months', yearly: 'year', lifetime: 'lifetime' } as Record<
    string,
    string
  >,
  perPeriod: (price: string, period: string) =>
    period === 'lifetime' ? `${price}, once` : `${price} / ${period}`,
};

type Strings = typeof en;

const ar: Strings = {
  dir: 'rtl',
  otherLanguage: 'English',
  home: 'الرئيسية',
  categories: 'التصنيفات',
  products: 'المنتجات',
  allProducts: 'كل المنتجات',
  search: 'بحث',
  searchLabel: 'ابحث في المتجر',
  searchTitle: (q: string) => (q ? `نتائج البحث عن «${q}»` : 'بحث'),
  noResults: 'لا يوجد منتج يطابق بحثك.',
  noProducts: 'لا توجد منتجات معروضة بعد.',
  policies: 'السياسات',
  policiesTitle: 'سياسات المتجر',
  noPolicies: 'لم يكتب المتجر سياساته بعد.',
  inStock: 'متوفر',
  fewLeft: (n: number) => `بقي ${n} فقط`,
  soldOut: 'نفدت الكمية',
  onSale: 'تخفيض',
  was: 'كان',
  buy: 'اشترِ الآن',
  unavailable: 'غير متاح',
  description: 'الوصف',
  options: 'ما تختاره عند الشراء',
  plans: 'الخطط',
  reviews: 'التقييمات',
  noReviews: 'لا توجد تقييمات بعد.',
  verified: 'شراء مؤكد',
  ratingOf: (avg: string, count: number) => `${avg} من 5 (${count} تقييم)`,
  stars: (n: number) => `${n} من 5 نجوم`,
  required: 'مطلوب',
  optional: 'اختياري',
  notFoundTitle: 'الصفحة غير موجودة',
  notFound: 'هذه الصفحة غير موجودة أو أن المنتج لم يعد معروضًا للبيع.',
  backToStore: 'العودة إلى المتجر',
  checkoutTitle: 'إتمام الشراء',
  yourDetails: 'بياناتك',
  firstName: 'الاسم الأول',
  lastName: 'اسم العائلة',
  email: 'البريد الإلكتروني',
  countryCode: 'رمز الدولة',
  phone: 'رقم الجوال',
  phoneHint: 'نرسل مشترياتك وإيصالك إلى هذا الرقم والبريد.',
  quantity: 'الكمية',
  plan: 'الخطة',
  coupon: 'كود الخصم',
  note: 'ملاحظة للمتجر',
  details: 'تفاصيل المنتج',
  paymentMethod: 'طريقة الدفع',
  continueToPay: 'المتابعة إلى الدفع',
  noMethods: 'لا يستطيع المتجر قبول الدفع لهذا المنتج حاليًا.',
  fixErrors: 'يرجى تصحيح الحقول المعلّمة.',
  chooseOption: 'اختر…',
  fileHint: (accept: string[], mb: number) => `${accept.join('، ')}؛ حتى ${mb} م.ب`,
  secure: 'تدفع في صفحة مزود الدفع؛ لا نطّلع على بيانات بطاقتك.',
  total: 'السعر',
  poweredBy: 'متجر على متجر',
  durations: { monthly: 'شهر', quarterly: '3 أشهر', yearly: 'سنة', lifetime: 'مدى الحياة' },
  perPeriod: (price: string, period: string) =>
    period === 'مدى الحياة' ? `${price} مرة واحدة` : `${price} / ${period}`,
};

export const PAGE_STRINGS: Readonly<Record<Locale, Strings>> = { en, ar };
export type PageStrings = Strings;
