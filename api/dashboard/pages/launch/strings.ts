import type { Locale } from '../../../pay/i18n';

/**
 * The launch checklist's text, the "no payment method" flag and the order number's labels, Arabic and
 * English (kept beside the feature; docs/dashboard.md, "Launch checklist").
 */
export interface LaunchText {
  title: string;
  intro: string;
  done: string;
  todo: string;
  allDone: string;
  items: {
    payment: string;
    product: string;
    keys: string;
    share: string;
    test_purchase: string;
  };
  hints: {
    payment: string;
    paymentProduction: string;
    product: string;
    keys: string;
    share: string;
    test_purchase: string;
  };
  noPaymentFlag: string;
  noPaymentAction: string;
  /** The platform-wide id beside a store's order number. */
  orderId: string;
  snippetTitle: string;
  snippetHint: string;
  copy: string;
  copied: string;
  /** A code product's stock in the products list. */
  keysLeft: (n: number) => string;
  /** A payment's status on the order page. */
  paymentStatus: Record<string, string>;
}

export const LAUNCH_TEXT: Record<Locale, LaunchText> = {
  en: {
    title: 'Get your store ready',
    intro: 'Five steps to your first sale. Each one ticks itself once it is done.',
    done: 'Done',
    todo: 'To do',
    allDone: 'Your store is ready to sell.',
    items: {
      payment: 'Turn on a payment method',
      product: 'Add a product',
      keys: 'Add keys to sell',
      share: 'Share the product’s link or paste the widget',
      test_purchase: 'Make a test purchase',
    },
    hints: {
      payment: 'In development, switch on the sandbox card to try paying without real money.',
      paymentProduction:
        'Switch on card with Moyasar. Use its test keys (sk_test_…, pk_test_…) first: payments then use test cards and no money moves.',
      product: 'A product on sale is what the widget and your store pages sell.',
      keys: 'A code product sells one key per purchase: with no keys left it cannot be bought.',
      share: 'Copy the widget snippet on a product’s page and paste it into your site, or share its link.',
      test_purchase: 'Buy your own product once, as a buyer would.',
    },
    noPaymentFlag: 'No payment method is on: buyers cannot pay for anything yet.',
    noPaymentAction: 'Turn one on',
    orderId: 'ID',
    snippetTitle: 'Sell it on your site',
    snippetHint: 'Paste this into your page: the button opens the checkout for this product.',
    copy: 'Copy snippet',
    copied: 'Copied',
    keysLeft: (n) => (n === 1 ? '1 key left' : `${n} keys left`),
    paymentStatus: {
      pending: 'pending',
      initiated: 'started',
      paid: 'paid',
      failed: 'failed',
      expired: 'expired',
      refunded: 'refunded',
    },
  },
  ar: {
    title: 'جهّز متجرك',
    intro: 'خمس خطوات إلى أول عملية بيع. تُعلَّم كل خطوة وحدها حين تكتمل.',
    done: 'تمّت',
    todo: 'لم تتم',
    allDone: 'متجرك جاهز للبيع.',
    items: {
      payment: 'فعّل طريقة دفع',
      product: 'أضف منتجًا',
      keys: 'أضف مخزون منتجات الأكواد',
      share: 'شارك رابط المنتج أو الصق الزر في موقعك',
      test_purchase: 'أجرِ عملية شراء تجريبية',
    },
    hints: {
      payment: 'في بيئة التطوير فعّل البطاقة التجريبية (Sandbox) لتجربة الدفع دون مال حقيقي.',
      paymentProduction:
        'فعّل الدفع بالبطاقة عبر Moyasar. ابدأ بمفاتيح الاختبار (sk_test_… و pk_test_…): تُستخدم حينها بطاقات اختبار ولا تنتقل أي أموال.',
      product: 'المنتج المعروض للبيع هو ما يبيعه الزر وصفحات متجرك.',
      keys: 'منتج الأكواد يبيع كودًا واحدًا في كل عملية شراء: إذا نفدت الأكواد لا يمكن شراؤه.',
      share: 'انسخ شيفرة الزر من صفحة المنتج والصقها في موقعك، أو شارك رابطه.',
      test_purchase: 'اشترِ منتجك مرة واحدة كما يفعل المشتري.',
    },
    noPaymentFlag: 'لا توجد طريقة دفع مفعّلة: لا يستطيع المشترون الدفع بعد.',
    noPaymentAction: 'فعّل واحدة',
    orderId: 'المعرّف',
    snippetTitle: 'بِعه في موقعك',
    snippetHint: 'الصق هذا في صفحتك: يفتح الزر صفحة الشراء لهذا المنتج.',
    copy: 'نسخ الشيفرة',
    copied: 'تم النسخ',
    keysLeft: (n) => `المتبقي ${n} من الأكواد`,
    paymentStatus: {
      pending: 'قيد الانتظار',
      initiated: 'بدأت',
      paid: 'مدفوعة',
      failed: 'فشلت',
      expired: 'انتهت صلاحيتها',
      refunded: 'مستردة',
    },
  },
};
