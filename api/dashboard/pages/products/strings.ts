import type { Locale } from '../../../pay/i18n';

/**
 * The product page's own text, Arabic and English (kept beside the feature; docs/dashboard.md, "The
 * product form by type" and "A product's keys").
 */
export interface ProductText {
  chooseType: string;
  sectionFor: (types: string) => string;
  keysSection: string;
  keysLeftTitle: string;
  keys: string;
  counts: { available: string; reserved: string; sold: string; withdrawn: string };
  key: string;
  status: string;
  added: string;
  keyStatus: { available: string; reserved: string; sold: string };
  deleteKey: (last4: string) => string;
  deleteLabel: string;
  noKeys: string;
  keyDeleted: string;
  keySoldRefused: string;
  keyHeldRefused: string;
  keyGone: string;
  keysPage: (page: number, pages: number) => string;
  previous: string;
  next: string;
  fieldLabelAr: string;
  fieldOptionsAr: string;
  fieldOptionsArHint: string;
  fivemHint: string;
}

export const PRODUCT_TEXT: Record<Locale, ProductText> = {
  en: {
    chooseType: 'What do you sell?',
    sectionFor: (types) => `For: ${types}`,
    keysSection: 'Keys',
    keysLeftTitle: 'Stock',
    keys: 'Keys',
    counts: { available: 'Left', reserved: 'Held by a checkout', sold: 'Sold', withdrawn: 'Withdrawn' },
    key: 'Key',
    status: 'Status',
    added: 'Added',
    keyStatus: { available: 'on sale', reserved: 'held by a checkout', sold: 'sold' },
    deleteKey: (last4) => `Delete the key ending ${last4}`,
    deleteLabel: 'Delete',
    noKeys: 'No keys yet: add them in “Add keys” above or upload a CSV file.',
    keyDeleted: 'The key was deleted.',
    keySoldRefused: 'This key is sold: it belongs to its buyer’s order and cannot be deleted.',
    keyHeldRefused:
      'A checkout in progress holds this key: it cannot be deleted unless that checkout lapses.',
    keyGone: 'This key is no longer on the product.',
    keysPage: (page, pages) => `Page ${page} of ${pages}`,
    previous: 'Previous',
    next: 'Next',
    fieldLabelAr: 'Label in Arabic',
    fieldOptionsAr: 'Options in Arabic',
    fieldOptionsArHint: 'One a line, in the same order as the options (an empty line: none for that option).',
    fivemHint: 'Your store has a FiveM server: these run on it after a purchase.',
  },
  ar: {
    chooseType: 'ماذا تبيع؟',
    sectionFor: (types) => `لـ: ${types}`,
    keysSection: 'المفاتيح',
    keysLeftTitle: 'المخزون',
    keys: 'المفاتيح',
    counts: { available: 'المتبقي', reserved: 'محجوز لدفع جارٍ', sold: 'المباع', withdrawn: 'المسحوب' },
    key: 'المفتاح',
    status: 'الحالة',
    added: 'أُضيف',
    keyStatus: { available: 'معروض للبيع', reserved: 'محجوز لدفع جارٍ', sold: 'مباع' },
    deleteKey: (last4) => `حذف المفتاح المنتهي بـ ${last4}`,
    deleteLabel: 'حذف',
    noKeys: 'لا مفاتيح بعد: أضفها في «إضافة مفاتيح» أعلاه أو ارفع ملف CSV.',
    keyDeleted: 'حُذف المفتاح.',
    keySoldRefused: 'هذا المفتاح مباع: إنه من طلب المشتري ولا يمكن حذفه.',
    keyHeldRefused: 'عملية دفع جارية تحجز هذا المفتاح: لا يمكن حذفه إلا إذا انتهت مهلتها.',
    keyGone: 'هذا المفتاح لم يعد في المنتج.',
    keysPage: (page, pages) => `صفحة ${page} من ${pages}`,
    previous: 'السابق',
    next: 'التالي',
    fieldLabelAr: 'العنوان بالعربية',
    fieldOptionsAr: 'الخيارات بالعربية',
    fieldOptionsArHint: 'خيار في كل سطر وبترتيب الخيارات نفسه (سطر فارغ: لا ترجمة لذلك الخيار).',
    fivemHint: 'لمتجرك خادم FiveM: تُنفَّذ هذه الأوامر عليه بعد الشراء.',
  },
};
