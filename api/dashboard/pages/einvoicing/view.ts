import type { EinvoicingOverview } from '../../../../shared/services/einvoicing/dashboard';
import { formatDate } from '../../i18n';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell } from '../../view-parts';

/** The e-invoicing page (ZATCA phase 2): onboarding step by step, renewal, and the documents' reporting. */

const STRINGS = {
  en: {
    title: 'E-invoicing (ZATCA)',
    intro:
      'Phase 2 of ZATCA e-invoicing: each invoice and credit note becomes a signed XML document, chained to the one before and reported to ZATCA within 24 hours.',
    needVat:
      'Add the store’s VAT number and legal name in the tax settings first. E-invoicing is for stores selling in SAR.',
    simulation:
      'Simulation mode: documents are signed with a self-issued test certificate (not trusted by ZATCA).',
    step1: '1. Seller address and key',
    step1Hint:
      'These fields go into every document and into the certificate request (CSR). A new signing key is made and kept sealed.',
    crn: 'Commercial registration number (optional)',
    street: 'Street',
    building: 'Building number (4 digits)',
    district: 'District',
    city: 'City',
    postal: 'Postal code (5 digits)',
    branch: 'Branch name',
    location: 'Location',
    industry: 'Industry',
    makeKey: 'Make the key and CSR',
    step2: '2. One-time password',
    step2Hint:
      'Ask ZATCA’s Fatoora portal for a one-time password (Onboard new solution unit/device) and enter it here within an hour.',
    otp: 'One-time password (6 digits)',
    getCompliance: 'Get the compliance CSID',
    step3: '3. Compliance checks and production CSID',
    step3Hint:
      'A sample invoice, credit note and debit note are signed and checked by ZATCA; then the production CSID is issued.',
    runChecks: 'Run the checks and get the production CSID',
    active: 'Onboarded: documents are signed with your certificate and reported to ZATCA.',
    expires: 'Certificate valid until',
    renew: 'Renew the certificate',
    renewHint:
      'Before the certificate expires, ask the Fatoora portal for a new one-time password: a new key and certificate replace the current ones.',
    renewButton: 'Renew',
    checks: 'Compliance checks',
    documents: 'Documents',
    noDocuments: 'No document yet.',
    counter: 'Counter',
    kind: { invoice: 'Invoice', credit_note: 'Credit note' } as Record<string, string>,
    number: 'Number',
    issued: 'Issued',
    reporting: 'Reporting',
    status: { pending: 'Pending', reported: 'Reported', rejected: 'Rejected by ZATCA' } as Record<
      string,
      string
    >,
    xml: 'XML',
    download: 'Download',
    order: 'Order',
    saved: 'Done.',
    overdue: 'Late: not reported within 24 hours',
    fieldsError: 'Check the address: building number 4 digits, postal code 5 digits, the others filled in.',
  },
  ar: {
    title: 'الفوترة الإلكترونية (هيئة الزكاة والضريبة والجمارك)',
    intro:
      'المرحلة الثانية من الفوترة الإلكترونية: كل فاتورة وإشعار دائن مستند XML موقّع، مرتبط بالمستند الذي قبله، ويُبلَّغ عنه للهيئة خلال 24 ساعة.',
    needVat:
      'أضف الرقم الضريبي للمتجر واسمه القانوني في إعدادات الضريبة أولاً. الفوترة الإلكترونية للمتاجر التي تبيع بالريال السعودي.',
    simulation: 'وضع المحاكاة: تُوقَّع المستندات بشهادة اختبار ذاتية الإصدار (لا تعتمدها الهيئة).',
    step1: '١. عنوان البائع والمفتاح',
    step1Hint: 'تدخل هذه الحقول في كل مستند وفي طلب الشهادة (CSR). يُنشأ مفتاح توقيع جديد ويُحفظ مشفّراً.',
    crn: 'رقم السجل التجاري (اختياري)',
    street: 'الشارع',
    building: 'رقم المبنى (4 أرقام)',
    district: 'الحي',
    city: 'المدينة',
    postal: 'الرمز البريدي (5 أرقام)',
    branch: 'اسم الفرع',
    location: 'الموقع',
    industry: 'النشاط',
    makeKey: 'إنشاء المفتاح وطلب الشهادة',
    step2: '٢. رمز التحقق لمرة واحدة',
    step2Hint: 'اطلب رمز تحقق من بوابة فاتورة (تسجيل وحدة حل/جهاز جديدة) وأدخله هنا خلال ساعة.',
    otp: 'رمز التحقق (6 أرقام)',
    getCompliance: 'الحصول على شهادة الامتثال',
    step3: '٣. فحوص الامتثال وشهادة الإنتاج',
    step3Hint: 'تُوقَّع فاتورة وإشعار دائن وإشعار مدين نموذجية وتفحصها الهيئة، ثم تُصدر شهادة الإنتاج.',
    runChecks: 'تشغيل الفحوص والحصول على شهادة الإنتاج',
    active: 'تم التسجيل: تُوقَّع المستندات بشهادتك ويُبلَّغ عنها للهيئة.',
    expires: 'الشهادة سارية حتى',
    renew: 'تجديد الشهادة',
    renewHint:
      'قبل انتهاء الشهادة اطلب رمز تحقق جديداً من بوابة فاتورة: يحل مفتاح وشهادة جديدان محل الحاليين.',
    renewButton: 'تجديد',
    checks: 'فحوص الامتثال',
    documents: 'المستندات',
    noDocuments: 'لا توجد مستندات بعد.',
    counter: 'العدّاد',
    kind: { invoice: 'فاتورة', credit_note: 'إشعار دائن' } as Record<string, string>,
    number: 'الرقم',
    issued: 'الإصدار',
    reporting: 'الإبلاغ',
    status: { pending: 'بانتظار الإبلاغ', reported: 'تم الإبلاغ', rejected: 'رفضته الهيئة' } as Record<
      string,
      string
    >,
    xml: 'XML',
    download: 'تنزيل',
    order: 'الطلب',
    saved: 'تم.',
    overdue: 'متأخر: لم يُبلَّغ عنه خلال 24 ساعة',
    fieldsError: 'راجع العنوان: رقم المبنى 4 أرقام، والرمز البريدي 5 أرقام، وبقية الحقول مملوءة.',
  },
};

export interface EinvoicingPageState {
  notice: string | null;
  error: string | null;
}

function field(id: string, name: string, label: string, value: string | null, extra = ''): string {
  return `<label for="${id}">${esc(label)}</label><input id="${id}" name="${name}" value="${esc(value ?? '')}"${extra}>`;
}

export function einvoicingView(s: Shell, o: EinvoicingOverview, state: EinvoicingPageState): string {
  const L = STRINGS[s.locale];
  const st = o.settings;
  const notice = state.notice ? `<p class="notice" role="status">${esc(state.notice)}</p>` : '';
  const error = state.error ? `<p class="field-error" role="alert">${esc(state.error)}</p>` : '';
  const parts: string[] = [`<h1>${esc(L.title)}</h1>`, `<p class="muted">${esc(L.intro)}</p>`, notice, error];
  if (!o.store.vat_number || o.store.currency !== 'SAR') {
    parts.push(`<section class="card"><p>${esc(L.needVat)}</p></section>`);
  } else if (st?.mode === 'simulation') {
    parts.push(`<section class="card"><p>${esc(L.simulation)}</p></section>`);
  } else {
    const status = st?.status ?? null;
    if (status === null || status === 'keys' || status === 'compliance' || status === 'checked') {
      parts.push(`<form method="post" action="/merchant/einvoicing/onboard" class="card" novalidate><h2>${esc(L.step1)}</h2>
<p class="muted">${esc(L.step1Hint)}</p>${tokenField(s.formToken)}
${field('e-crn', 'crn', L.crn, st?.crn ?? null, ' inputmode="numeric" maxlength="20" dir="ltr"')}
${field('e-street', 'street', L.street, st?.street ?? null, ' maxlength="127" required')}
${field('e-building', 'building_number', L.building, st?.building_number ?? null, ' inputmode="numeric" maxlength="4" required dir="ltr"')}
${field('e-district', 'district', L.district, st?.district ?? null, ' maxlength="127" required')}
${field('e-city', 'city', L.city, st?.city ?? null, ' maxlength="127" required')}
${field('e-postal', 'postal_zone', L.postal, st?.postal_zone ?? null, ' inputmode="numeric" maxlength="5" required dir="ltr"')}
${field('e-branch', 'branch_name', L.branch, st?.branch_name ?? 'Main', ' maxlength="64" required')}
${field('e-location', 'location', L.location, st?.location ?? null, ' maxlength="64" required')}
${field('e-industry', 'industry', L.industry, st?.industry ?? null, ' maxlength="64" required')}
<button type="submit">${esc(L.makeKey)}</button></form>`);
    }
    if (status === 'keys') {
      parts.push(`<form method="post" action="/merchant/einvoicing/compliance" class="card" novalidate><h2>${esc(L.step2)}</h2>
<p class="muted">${esc(L.step2Hint)}</p>${tokenField(s.formToken)}
${field('e-otp', 'otp', L.otp, '', ' inputmode="numeric" maxlength="6" autocomplete="one-time-code" required dir="ltr"')}
<button type="submit">${esc(L.getCompliance)}</button></form>`);
    }
    if (status === 'compliance' || status === 'checked') {
      parts.push(`<form method="post" action="/merchant/einvoicing/activate" class="card"><h2>${esc(L.step3)}</h2>
<p class="muted">${esc(L.step3Hint)}</p>${tokenField(s.formToken)}
<button type="submit">${esc(L.runChecks)}</button></form>`);
    }
    if (status === 'active') {
      parts.push(`<section class="card"><p>${esc(L.active)}</p>${
        st?.certificate_expires_at
          ? `<p>${esc(L.expires)}: <bdi>${esc(formatDate(st.certificate_expires_at, s))}</bdi></p>`
          : ''
      }</section>
<form method="post" action="/merchant/einvoicing/renew" class="card" novalidate><h2>${esc(L.renew)}</h2>
<p class="muted">${esc(L.renewHint)}</p>${tokenField(s.formToken)}
${field('e-renew-otp', 'otp', L.otp, '', ' inputmode="numeric" maxlength="6" autocomplete="one-time-code" required dir="ltr"')}
<button type="submit">${esc(L.renewButton)}</button></form>`);
    }
    const checks = Object.entries(st?.compliance_checks ?? {});
    if (checks.length) {
      parts.push(
        `<section class="card"><h2>${esc(L.checks)}</h2><ul>${checks
          .map(([k, v]) => `<li>${esc(k)}: <strong>${esc(v)}</strong></li>`)
          .join('')}</ul></section>`,
      );
    }
  }
  const rows = o.documents
    .map((d) => {
      const messages = [...d.errors, ...d.warnings]
        .map((m) => `<li><code>${esc(m.code ?? '')}</code> ${esc(m.message ?? '')}</li>`)
        .join('');
      return `<tr><td class="num">${d.counter}</td><td>${esc(L.kind[d.kind] ?? d.kind)} <bdi>${d.number ?? ''}</bdi></td>
<td>${d.order_id ? `<a href="/merchant/orders/${d.order_id}">#${d.order_id}</a>` : ''}</td>
<td class="num">${esc(formatDate(d.issued_at, s))}</td>
<td><span class="status-${esc(d.reporting_status)}">${esc(L.status[d.reporting_status] ?? d.reporting_status)}</span>${
        d.overdue ? `<br><strong class="field-error">${esc(L.overdue)}</strong>` : ''
      }${
        d.last_error && d.reporting_status === 'pending'
          ? `<br><small class="muted">${esc(d.last_error)}</small>`
          : ''
      }${messages ? `<ul class="plain">${messages}</ul>` : ''}</td>
<td><a href="/merchant/einvoicing/documents/${d.id}/xml" download aria-label="${esc(`${L.download} XML ${d.counter}`)}">${esc(L.download)}</a></td></tr>`;
    })
    .join('');
  parts.push(
    `<section class="card"><h2>${esc(L.documents)}</h2>${
      o.documents.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(L.counter)}</th><th scope="col">${esc(L.number)}</th><th scope="col">${esc(L.order)}</th><th scope="col">${esc(L.issued)}</th><th scope="col">${esc(L.reporting)}</th><th scope="col">${esc(L.xml)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
        : `<p class="muted">${esc(L.noDocuments)}</p>`
    }</section>`,
  );
  return shellPage({ ...s, current: 'einvoicing' }, L.title, parts.join('\n'));
}

export const einvoicingStrings = STRINGS;
