import type { AppContext } from '../context';
import { currencyExponent } from '../../shared/currency';
import { formatMoney } from '../../shared/money';

/**
 * The buyer pages (hosted checkout and payment pages, the sandbox provider's page) speak Arabic, right to
 * left, and English. The language comes from, in order: `?lang=ar|en` (the switch on every page, which also
 * sets a cookie so the next page and form answers keep it), that cookie, then the browser's
 * Accept-Language; English when none of them names a language we have.
 */

export type Locale = 'ar' | 'en';
export const LOCALES: readonly Locale[] = ['ar', 'en'];
const COOKIE = 'matjar_lang';

const isLocale = (value: unknown): value is Locale => value === 'ar' || value === 'en';

/** The first language of an Accept-Language header we have, by the header's q-values. */
export function fromAcceptLanguage(header: string | undefined): Locale | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { lang: tag.trim().toLowerCase().split('-')[0], q: q ? Number(q[1]) : 1, index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((r) => r.lang).find(isLocale) ?? null;
}

/** The page's language; a `?lang=` choice is remembered in a cookie (no JavaScript needed). */
export function pickLocale(ctx: AppContext): Locale {
  const asked = ctx.query.lang;
  if (isLocale(asked)) {
    ctx.cookies.set(COOKIE, asked, {
      httpOnly: true,
      sameSite: 'lax',
      overwrite: true,
      maxAge: 365 * 24 * 3600 * 1000,
    });
    return asked;
  }
  const remembered = ctx.cookies.get(COOKIE);
  if (isLocale(remembered)) return remembered;
  return fromAcceptLanguage(ctx.get('Accept-Language')) ?? 'en';
}

/**
 * The digits a store's Arabic pages are written with (`stores.digits`, chosen on the dashboard's
 * preferences page): Western (0-9, the default) or Arabic-Indic (٠-٩). English pages always use 0-9.
 */
export type Digits = 'western' | 'arabic_indic';

/** How a page writes numbers and times: its language, the store's digits, the store's time zone. */
export interface Reading {
  locale: Locale;
  digits?: Digits;
  /** An IANA zone; UTC when not given. */
  timeZone?: string;
}

const readingOf = (r: Locale | Reading): Reading => (typeof r === 'string' ? { locale: r } : r);

/**
 * The BCP 47 tag Intl formats with: Arabic with the Gregorian calendar and the store's numbering system
 * named outright (`nu-latn` or `nu-arab`), since `ar` alone gives Arabic-Indic digits in some runtimes.
 */
export function intlTag(r: Locale | Reading, kind: 'number' | 'date' = 'number'): string {
  const { locale, digits } = readingOf(r);
  if (locale !== 'ar') return kind === 'date' ? 'en-GB' : 'en-US';
  return `ar-SA-u-ca-gregory-nu-${digits === 'arabic_indic' ? 'arab' : 'latn'}`;
}

/** Text whose Western digits become Arabic-Indic on an Arabic page of a store that chose them. */
export function withDigits(text: string, r: Locale | Reading): string {
  const { locale, digits } = readingOf(r);
  if (locale !== 'ar' || digits !== 'arabic_indic') return text;
  return text.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)));
}

/**
 * "50.00 SAR" as the locale writes it: "SAR 50.00" / "50.00 ر.س.". Minor units in; out with the
 * currency's own decimals (ISO 4217: "1.250 KWD", "500 JPY"), read from the one currency table; in
 * Arabic with the store's digits (Western unless it chose Arabic-Indic).
 */
export function formatAmount(minor: number, currency: string, reading: Locale | Reading): string {
  const tag = intlTag(reading);
  const digits = currencyExponent(currency);
  // Formatted from the exact decimal text, never from minor / 10^digits as a float.
  const text = formatMoney(minor, currency);
  try {
    return new Intl.NumberFormat(tag, {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(text as unknown as number);
  } catch {
    return withDigits(`${text} ${currency}`, reading);
  }
}

/** A count (orders, uses, visitors) in the page's digits. */
export function formatCount(n: number, reading: Locale | Reading): string {
  return new Intl.NumberFormat(intlTag(reading), { useGrouping: false }).format(n);
}

/** A payment deadline as the locale writes it, in UTC (said so), Gregorian with Latin digits in Arabic too. */
export function formatDeadline(at: Date, locale: Locale): string {
  const tag = locale === 'ar' ? 'ar-SA-u-ca-gregory-nu-latn' : 'en-GB';
  const text = new Intl.DateTimeFormat(tag, {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(at);
  return `${text} UTC`;
}

type Strings = typeof en;

const en = {
  dir: 'ltr',
  switchTo: 'العربية',
  switchLang: 'ar' as Locale,
  secure: 'Secure payment',
  checkoutNotFound: 'Checkout not found',
  checkoutNotFoundText: 'This payment link has expired or does not exist. Please start the purchase again.',
  chooseTitle: 'Choose how to pay',
  payMethod: 'Payment method',
  payButton: (amount: string) => `Pay ${amount}`,
  noMethod: 'No payment method is available for this order.',
  paidTitle: 'Thank you, your payment was received',
  orderNumber: 'Order number',
  orderReference: (id: number) => `Platform reference: ${id}`,
  youBought: 'You bought',
  deliveryTitle: 'Delivery',
  keysBy: (phone: string) =>
    `Your key is sent by WhatsApp (or SMS if WhatsApp cannot reach you) to ${phone} within a minute.`,
  licenseBy: (phone: string) =>
    `Your license key is sent by WhatsApp (or SMS if WhatsApp cannot reach you) to ${phone}.`,
  inGame: (player: string | null) =>
    player
      ? `Your items are delivered in the game to player ${player} (if you are offline, the next time you join).`
      : 'Your items are delivered in the game by the store’s server.',
  service: 'The store will carry out your order and tell you when it is done.',
  subscription: 'Your subscription is active; the store confirms it to you by message.',
  renews: (period: 'monthly' | 'quarterly' | 'yearly') =>
    `Renews every ${{ monthly: 'month', quarterly: '3 months', yearly: 'year' }[period]} at this price, charged to the same card (or by a payment link for other methods). Cancel any time from the link in your renewal messages.`,
  subscriptionTitle: 'Your subscription',
  subscriptionState: (state: string) =>
    ({
      active: 'Active',
      past_due: 'Payment due',
      cancelled: 'Cancelled',
      expired: 'Expired',
    })[state] ?? state,
  subscriptionUntil: (date: string) => `Current period ends on ${date}.`,
  subscriptionEndsAt: (date: string) => `Cancelled: it stays active until ${date} and will not renew.`,
  subscriptionPrice: (price: string) => `Your price: ${price} a period.`,
  subscriptionNextPrice: (price: string, date: string) =>
    `From the first renewal on or after ${date} the price is ${price}. Cancel before then if you do not agree.`,
  subscriptionCancelNow: 'Cancel renewal',
  subscriptionAccount: 'All your purchases, licenses and subscriptions: your account',
  subscriptionCancelled: 'Your subscription will not renew.',
  renewalCancelledTitle: 'Subscription cancelled',
  renewalCancelledText: 'This subscription was cancelled: this renewal cannot be paid.',
  confirmationBy: (phone: string) => `A confirmation is sent to ${phone}.`,
  keepNumber: 'Keep your order number in case you need to contact the store.',
  accountLink: 'Your purchases, at any time: your account',
  invoiceLink: 'View your invoice',
  receiptLink: 'View your receipt',
  waitingReviewTitle: 'Waiting for your payment',
  waitingReview: (id: number) => `Order #${id} is waiting for your payment.`,
  transferTo: (amount: string) => `Transfer ${amount} to:`,
  bank: 'Bank',
  accountName: 'Account name',
  accountNumber: 'Account number',
  iban: 'IBAN',
  confirmedOnTransfer: 'Your order is confirmed once the store has received the transfer.',
  payWithin: (days: number, date: string) =>
    `Please pay within ${days} ${days === 1 ? 'day' : 'days'}, by ${date}. After that the order is cancelled and what it holds goes back on sale.`,
  paymentDeadlinePassed:
    'The time to pay for this order has passed, so it was cancelled. Please place a new order.',
  confirmedOnPayment: 'Your order is confirmed once the store has received the payment.',
  payWithPaypal: 'Pay with PayPal',
  sendByPaypal: (amount: string, email: string) => `Send ${amount} by PayPal to ${email}.`,
  completeTitle: 'Complete your payment',
  inProgressTitle: 'Payment in progress',
  creating: 'Preparing your payment… this page updates by itself.',
  confirming: 'Confirming your payment… this page updates by itself.',
  backToProvider: 'Back to the payment page',
  placedTitle: 'Order placed',
  alreadyPlaced: (id: number) => `Order #${id} was already placed for this checkout.`,
  notCompletedTitle: 'Payment not completed',
  retryWith: (method: string) => `Retry with ${method}`,
  noLongerPayable: 'This checkout can no longer be paid. Please start the purchase again.',
  notStartedTitle: 'Payment not started',
  sandboxTitle: 'Sandbox payment',
  sandboxNote: 'Sandbox payment provider · no real money moves',
  sandboxPay: 'Pay',
  sandboxFail: 'Fail',
  sandboxPaid: 'This payment was paid.',
  sandboxDeclined: 'This payment was declined.',
  backToStore: 'Back to the store',
  paymentNotFound: 'Payment not found',
  sandboxPreparing: 'The payment is still being prepared. Please try again in a moment.',
  sandboxNotSandbox: 'This payment is not a sandbox payment.',
  sandboxConflict: (decided: string) => `This payment was already ${decided}.`,
  sandboxBadOutcome: 'outcome must be paid or failed (or disputed, once paid)',
  sandboxClosed: 'This payment can no longer be decided.',
  paidWord: 'paid',
  failedWord: 'declined',
};

const ar: Strings = {
  dir: 'rtl',
  switchTo: 'English',
  switchLang: 'en',
  secure: 'دفع آمن',
  checkoutNotFound: 'لم يتم العثور على الطلب',
  checkoutNotFoundText: 'رابط الدفع هذا منتهي الصلاحية أو غير موجود. يرجى بدء عملية الشراء من جديد.',
  chooseTitle: 'اختر طريقة الدفع',
  payMethod: 'طريقة الدفع',
  payButton: (amount) => `ادفع ${amount}`,
  noMethod: 'لا تتوفر طريقة دفع لهذا الطلب.',
  paidTitle: 'شكراً لك، تم استلام دفعتك',
  orderNumber: 'رقم الطلب',
  orderReference: (id) => `المرجع في المنصة: ${id}`,
  youBought: 'ما اشتريته',
  deliveryTitle: 'التسليم',
  keysBy: (phone) => `يُرسل مفتاحك عبر واتساب (أو رسالة نصية إذا تعذّر واتساب) إلى الرقم ${phone} خلال دقيقة.`,
  licenseBy: (phone) => `يُرسل مفتاح الترخيص عبر واتساب (أو رسالة نصية إذا تعذّر واتساب) إلى الرقم ${phone}.`,
  inGame: (player) =>
    player
      ? `تُسلَّم مشترياتك داخل اللعبة إلى اللاعب ${player} (وإن لم تكن متصلاً، فعند دخولك التالي).`
      : 'تُسلَّم مشترياتك داخل اللعبة عبر خادم المتجر.',
  service: 'سيقوم المتجر بتنفيذ طلبك ويبلغك عند الانتهاء.',
  subscription: 'اشتراكك مفعّل، وسيؤكده لك المتجر برسالة.',
  renews: (period: 'monthly' | 'quarterly' | 'yearly') =>
    `يتجدد ${{ monthly: 'كل شهر', quarterly: 'كل 3 أشهر', yearly: 'كل سنة' }[period]} بهذا السعر، ويُخصم من البطاقة نفسها (أو برابط دفع لطرق الدفع الأخرى). يمكنك الإلغاء في أي وقت من الرابط في رسائل التجديد.`,
  subscriptionTitle: 'اشتراكك',
  subscriptionState: (state: string) =>
    ({
      active: 'مفعّل',
      past_due: 'بانتظار الدفع',
      cancelled: 'ملغى',
      expired: 'منتهٍ',
    })[state] ?? state,
  subscriptionUntil: (date: string) => `تنتهي الفترة الحالية في ${date}.`,
  subscriptionEndsAt: (date: string) => `تم الإلغاء: يبقى مفعّلاً حتى ${date} ولن يتجدد.`,
  subscriptionPrice: (price: string) => `سعرك: ${price} لكل فترة.`,
  subscriptionNextPrice: (price: string, date: string) =>
    `ابتداءً من أول تجديد في ${date} أو بعده يصبح السعر ${price}. ألغِ قبل ذلك إن لم توافق.`,
  subscriptionCancelNow: 'إلغاء التجديد',
  subscriptionAccount: 'كل مشترياتك وتراخيصك واشتراكاتك: حسابك',
  subscriptionCancelled: 'لن يتجدد اشتراكك.',
  renewalCancelledTitle: 'تم إلغاء الاشتراك',
  renewalCancelledText: 'تم إلغاء هذا الاشتراك: لا يمكن دفع هذا التجديد.',
  confirmationBy: (phone) => `يُرسل تأكيد إلى الرقم ${phone}.`,
  keepNumber: 'احتفظ برقم طلبك في حال احتجت إلى التواصل مع المتجر.',
  accountLink: 'مشترياتك في أي وقت: حسابك',
  invoiceLink: 'عرض الفاتورة',
  receiptLink: 'عرض الإيصال',
  waitingReviewTitle: 'بانتظار دفعتك',
  waitingReview: (id) => `الطلب رقم ${id} بانتظار دفعتك.`,
  transferTo: (amount) => `حوّل ${amount} إلى:`,
  bank: 'البنك',
  accountName: 'اسم الحساب',
  accountNumber: 'رقم الحساب',
  iban: 'رقم الآيبان',
  confirmedOnTransfer: 'يتأكد طلبك بعد أن يستلم المتجر التحويل.',
  payWithin: (days, date) =>
    `يرجى الدفع خلال ${days === 1 ? 'يوم واحد' : days === 2 ? 'يومين' : `${days} أيام`}، قبل ${date}. بعد ذلك يُلغى الطلب وتعود منتجاته للبيع.`,
  paymentDeadlinePassed: 'انتهت مهلة الدفع لهذا الطلب فأُلغي. يرجى إنشاء طلب جديد.',
  confirmedOnPayment: 'يتأكد طلبك بعد أن يستلم المتجر الدفعة.',
  payWithPaypal: 'ادفع عبر باي بال',
  sendByPaypal: (amount, email) => `أرسل ${amount} عبر باي بال إلى ${email}.`,
  completeTitle: 'أكمل الدفع',
  inProgressTitle: 'جارٍ الدفع',
  creating: 'جارٍ تجهيز عملية الدفع… تتحدث هذه الصفحة تلقائياً.',
  confirming: 'جارٍ تأكيد دفعتك… تتحدث هذه الصفحة تلقائياً.',
  backToProvider: 'العودة إلى صفحة الدفع',
  placedTitle: 'تم إنشاء الطلب',
  alreadyPlaced: (id) => `تم إنشاء الطلب رقم ${id} لهذه العملية مسبقاً.`,
  notCompletedTitle: 'لم تكتمل عملية الدفع',
  retryWith: (method) => `إعادة المحاولة عبر ${method}`,
  noLongerPayable: 'لم يعد بالإمكان دفع هذا الطلب. يرجى بدء عملية الشراء من جديد.',
  notStartedTitle: 'لم تبدأ عملية الدفع',
  sandboxTitle: 'دفع تجريبي',
  sandboxNote: 'مزوّد دفع تجريبي · لا تُنقل أموال حقيقية',
  sandboxPay: 'ادفع',
  sandboxFail: 'فشل',
  sandboxPaid: 'تم دفع هذه العملية.',
  sandboxDeclined: 'تم رفض هذه العملية.',
  backToStore: 'العودة إلى المتجر',
  paymentNotFound: 'لم يتم العثور على عملية الدفع',
  sandboxPreparing: 'ما زالت عملية الدفع قيد التجهيز. يرجى المحاولة بعد لحظات.',
  sandboxNotSandbox: 'هذه العملية ليست عملية دفع تجريبية.',
  sandboxConflict: (decided) => `تم ${decided} هذه العملية مسبقاً.`,
  sandboxBadOutcome: 'outcome must be paid or failed (or disputed, once paid)',
  sandboxClosed: 'لم يعد بالإمكان البت في هذه العملية.',
  paidWord: 'دفع',
  failedWord: 'رفض',
};

export const STRINGS: Readonly<Record<Locale, Strings>> = { en, ar };
export type { Strings };

/**
 * The language of an API answer to a buyer (Embed and Storefront messages, the OTP message): the
 * Accept-Language rule of the pages, English when it names no language we have.
 */
export const buyerLocale = (ctx: AppContext): Locale =>
  fromAcceptLanguage(ctx.get('Accept-Language')) ?? 'en';
