import type { StorePreferences } from '../../../../shared/services/notices/preferences';
import type { Locale } from '../../../pay/i18n';
import { esc, shellPage, tokenField } from '../../layout';
import type { Shell } from '../../view-parts';

/** The preferences page's words, Arabic and English. */
const WORDS = {
  en: {
    title: 'Preferences',
    notices: 'New-order notices',
    noticesHint:
      'Each new paid order is told to the store’s owners by message and to the support address by e-mail.',
    byMessage: 'Tell the owners by message',
    byEmail: 'E-mail the store’s support address',
    zone: 'Time zone',
    zoneHint: 'Dates on receipts are shown in it, for example Asia/Riyadh or Asia/Dubai.',
    errZone: 'A time zone such as Asia/Riyadh.',
    zoneUse: 'Expiry dates, sales and every date of the dashboard are shown and typed in it.',
    digits: 'Digits on Arabic pages',
    digitsHint: 'The dashboard, the store’s pages and the widget in Arabic. English pages always use 0-9.',
    western: 'Western: 0 1 2 3 4 5 6 7 8 9 (default)',
    arabicIndic: 'Arabic-Indic: ٠ ١ ٢ ٣ ٤ ٥ ٦ ٧ ٨ ٩',
    save: 'Save',
    saved: 'Preferences saved.',
  },
  ar: {
    title: 'التفضيلات',
    notices: 'تنبيهات الطلبات الجديدة',
    noticesHint: 'يُبلَّغ ملّاك المتجر بكل طلب مدفوع جديد برسالة، وعنوان الدعم بالبريد الإلكتروني.',
    byMessage: 'أبلغ الملّاك برسالة',
    byEmail: 'راسل عنوان دعم المتجر بالبريد',
    zone: 'المنطقة الزمنية',
    zoneHint: 'تظهر بها التواريخ في الإيصالات، مثل Asia/Riyadh أو Asia/Dubai.',
    errZone: 'منطقة زمنية مثل Asia/Riyadh.',
    zoneUse: 'تظهر بها تواريخ الانتهاء والتخفيضات وكل تواريخ لوحة التحكم، وتُكتب بها.',
    digits: 'الأرقام في الصفحات العربية',
    digitsHint: 'لوحة التحكم وصفحات المتجر والأداة بالعربية. الصفحات الإنجليزية تستخدم 0-9 دائماً.',
    western: 'غربية: 0 1 2 3 4 5 6 7 8 9 (الافتراضي)',
    arabicIndic: 'هندية: ٠ ١ ٢ ٣ ٤ ٥ ٦ ٧ ٨ ٩',
    save: 'حفظ',
    saved: 'حُفظت التفضيلات.',
  },
} satisfies Record<Locale, Record<string, string>>;

export interface PreferencesForm {
  values: StorePreferences;
  error: string | null;
  saved: boolean;
}

export function preferencesView(s: Shell, form: PreferencesForm): string {
  const w = WORDS[s.locale];
  const v = form.values;
  const check = (name: string, label: string, on: boolean) =>
    `<p><label><input type="checkbox" name="${name}" value="1"${on ? ' checked' : ''}> ${esc(label)}</label></p>`;
  const radio = (value: string, label: string) =>
    `<p><label class="check"><input type="radio" name="digits" value="${value}"${v.digits === value ? ' checked' : ''}> <span dir="auto">${esc(label)}</span></label></p>`;
  return shellPage(
    { ...s, current: 'settings' },
    w.title,
    `<h1>${esc(w.title)}</h1>${form.saved ? `<p role="status" class="notice">${esc(w.saved)}</p>` : ''}
<form method="post" action="/merchant/preferences" class="card" novalidate>${tokenField(s.formToken)}
<fieldset><legend>${esc(w.notices)}</legend><p class="hint">${esc(w.noticesHint)}</p>
${check('notify_order_message', w.byMessage, v.notify_order_message)}${check('notify_order_email', w.byEmail, v.notify_order_email)}
</fieldset>
<label for="time-zone">${esc(w.zone)} <span class="hint" id="time-zone-hint">${esc(w.zoneHint)}</span></label>
<input id="time-zone" name="time_zone" dir="ltr" autocomplete="off" value="${esc(v.time_zone)}" aria-describedby="time-zone-hint${form.error ? ' time-zone-error' : ''}"${form.error ? ' aria-invalid="true"' : ''}>
${form.error ? `<p class="error" id="time-zone-error" role="alert">${esc(w.errZone)}</p>` : ''}<p class="hint">${esc(w.zoneUse)}</p>
<fieldset class="plain"><legend>${esc(w.digits)}</legend><p class="hint">${esc(w.digitsHint)}</p>
${radio('western', w.western)}${radio('arabic_indic', w.arabicIndic)}</fieldset>
<button type="submit">${esc(w.save)}</button></form>`,
  );
}
