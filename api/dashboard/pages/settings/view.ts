import type { DomainStateView } from '../../../../shared/services/stores/domains';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell } from '../../view-parts';

/** The store settings page's content: name, currency, domains, embed key, the widget preview. */

export function confirmRotateView(s: Shell): string {
  const t = s.t;
  return shellPage(
    { ...s, current: 'settings' },
    t.confirmTitle,
    `<section class="card"><h1>${esc(t.confirmTitle)}</h1><p>${esc(t.confirmRotate)}</p>
<form method="post" action="/merchant/settings/embed-key">${tokenField(s.formToken)}<input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${esc(t.yesDoIt)}</button></form>
<p><a href="/merchant/settings">${esc(t.back)}</a></p></section>`,
  );
}

// ---------------------------------------------------------------- settings

/**
 * The real widget on the settings page: the script (/widget/v1.js, same origin, allowed by the page's
 * script-src 'self'; its Embed API calls are same-origin, allowed by connect-src 'self') on two buttons, a
 * light and a dark theme, with the store's embed key and one of its products on sale. Clicking opens the
 * real dialog a buyer sees. Without a product on sale, the static look of the button and a hint.
 */
function livePreview(
  s: Shell,
  embedKey: string,
  preview: { productId: number; productName: string } | null,
): string {
  const t = s.t;
  if (!preview) {
    return `<p class="muted">${esc(t.preview)}</p>
<p class="preview"><span class="buy-preview light" aria-hidden="true">${esc(t.buyNow)}</span> <span class="buy-preview dark" aria-hidden="true">${esc(t.buyNow)}</span></p>
<p class="hint">${esc(t.previewNeedsProduct)}</p>`;
  }
  const button = (theme: 'light' | 'dark') =>
    `<button type="button" class="buy-preview ${theme}" data-matjar-product="${preview.productId}" data-matjar-key="${esc(embedKey)}" data-matjar-theme="${theme}">${esc(t.buyNow)} · ${esc(t.themeName[theme])}</button>`;
  return `<h2 class="spaced">${esc(t.livePreview)}</h2>
<p class="muted" id="live-preview-hint">${esc(t.livePreviewHint(preview.productName))}</p>
<p class="preview" data-live-preview>${button('light')} ${button('dark')}</p>
<script src="/widget/v1.js" async></script>`;
}

/** How a domain reaches the platform once proven (docs/store-pages.md, "Store domains"). */
const DNS_SETUP = {
  en:
    'To show your store at a domain: point it at the platform. For a subdomain (shop.example.com) add a ' +
    'CNAME record whose value is the host name of this dashboard’s address; for a bare domain ' +
    '(example.com) add an A record with the platform’s IP address (your host gives it). Once the TXT ' +
    'record proves the domain, its address opens your store page.',
  ar:
    'لعرض متجرك على نطاقك: وجّه النطاق إلى المنصة. للنطاق الفرعي (shop.example.com) أضف سجل CNAME قيمته ' +
    'اسم المضيف في عنوان لوحة التحكم هذه؛ وللنطاق الرئيسي (example.com) أضف سجل A بعنوان IP الخاص بالمنصة ' +
    '(يعطيك إياه مزود الاستضافة). بعد أن يثبت سجل TXT ملكية النطاق يفتح عنوانه صفحة متجرك.',
} as const;

/**
 * Each domain's state; a pending one with the TXT record that proves it (name and value in read-only
 * inputs, to select and copy) and a "verify now" button (docs/merchant.md, "Store domains").
 */
function domainStatesView(s: Shell, domains: DomainStateView[]): string {
  if (domains.length === 0) return '';
  const t = s.t;
  const rows = domains.map((d, i) => {
    if (d.status === 'verified') {
      return `<li data-domain="${esc(d.domain)}" data-domain-status="verified"><strong dir="ltr">${esc(d.domain)}</strong>: ${esc(t.domainVerified)}</li>`;
    }
    return `<li data-domain="${esc(d.domain)}" data-domain-status="pending"><strong dir="ltr">${esc(d.domain)}</strong>: ${esc(t.domainPending)}
<label for="txt-name-${i}">${esc(t.txtName)}</label>
<input id="txt-name-${i}" readonly dir="ltr" class="mono" value="${esc(d.txt_name)}">
<label for="txt-value-${i}">${esc(t.txtValue)}</label>
<input id="txt-value-${i}" readonly dir="ltr" class="mono" value="${esc(d.txt_value)}">
<form method="post" action="/merchant/settings/domains/verify">${tokenField(s.formToken)}<input type="hidden" name="domain" value="${esc(d.domain)}"><button type="submit" class="secondary">${esc(t.verifyNow)}</button></form></li>`;
  });
  return `<section class="card" aria-labelledby="domain-states">
<h2 id="domain-states">${esc(t.domainStates)}</h2>
${domains.some((d) => d.status === 'pending') ? `<p class="hint">${esc(t.domainProofHint)}</p>` : ''}
<ul class="plain">
${rows.join('\n')}
</ul>
<p class="hint" data-dns-setup>${esc(DNS_SETUP[s.locale])}</p></section>`;
}

export function settingsView(
  s: Shell,
  store: {
    name: string;
    currency: string;
    embed_key: string;
    allowed_origins: string[];
    domains: DomainStateView[];
    support_email: string | null;
  },
  form: {
    name: string;
    origins: string;
    /** The domains as typed (a refused save); undefined: the store's. */
    domains?: string;
    /** The support address as typed; undefined: the store's. */
    supportEmail?: string;
    errors: { name?: string; origins?: string; domains?: string; supportEmail?: string };
    notice: string | null;
  },
  widgetUrl: string,
  preview: { productId: number; productName: string } | null = null,
): string {
  const t = s.t;
  const snippet = `<script src="${widgetUrl}" async></script>\n<button data-matjar-product="PRODUCT_ID" data-matjar-key="${store.embed_key}">Buy now</button>`;
  return shellPage(
    { ...s, current: 'settings' },
    t.settings,
    `<h1>${esc(t.settings)}</h1>
${form.notice ? `<p class="notice" role="status">${esc(form.notice)}</p>` : ''}
<p><a href="/merchant/preferences" data-preferences>${esc(s.locale === 'ar' ? 'التفضيلات: تنبيهات الطلبات الجديدة والمنطقة الزمنية' : 'Preferences: new-order notices and time zone')}</a></p>
<form method="post" action="/merchant/settings" class="card" novalidate>
<h2>${esc(t.storeDetails)}</h2>
${tokenField(s.formToken)}
<label for="store_name">${esc(t.storeName)}</label>
<input id="store_name" name="name" required maxlength="200" value="${esc(form.name)}"${form.errors.name ? ' aria-invalid="true" aria-describedby="name-error"' : ''}>
${form.errors.name ? `<p id="name-error" class="field-error">${esc(form.errors.name)}</p>` : ''}
<label for="support_email">${esc(t.supportEmail)}</label>
<input id="support_email" name="support_email" type="email" maxlength="254" dir="ltr" autocomplete="email" value="${esc(form.supportEmail ?? store.support_email ?? '')}" aria-describedby="support-email-hint${form.errors.supportEmail ? ' support-email-error' : ''}"${form.errors.supportEmail ? ' aria-invalid="true"' : ''}>
<span id="support-email-hint" class="hint">${esc(t.supportEmailHint)}</span>
${form.errors.supportEmail ? `<p id="support-email-error" class="field-error">${esc(form.errors.supportEmail)}</p>` : ''}
<label for="allowed_origins">${esc(t.allowedOrigins)}</label>
<textarea id="allowed_origins" name="allowed_origins" rows="3" dir="ltr" aria-describedby="origins-hint${form.errors.origins ? ' origins-error' : ''}"${form.errors.origins ? ' aria-invalid="true"' : ''}>${esc(form.origins)}</textarea>
<span id="origins-hint" class="hint">${esc(t.allowedOriginsHint)}</span>
${form.errors.origins ? `<p id="origins-error" class="field-error">${esc(form.errors.origins)}</p>` : ''}
<label for="domains">${esc(t.domains)}</label>
<textarea id="domains" name="domains" rows="2" dir="ltr" aria-describedby="domains-hint${form.errors.domains ? ' domains-error' : ''}"${form.errors.domains ? ' aria-invalid="true"' : ''}>${esc(form.domains ?? store.domains.map((d) => d.domain).join('\n'))}</textarea>
<span id="domains-hint" class="hint">${esc(t.domainsHint)}</span>
${form.errors.domains ? `<p id="domains-error" class="field-error">${esc(form.errors.domains)}</p>` : ''}
<button type="submit">${esc(t.save)}</button>
</form>
${domainStatesView(s, store.domains)}
<p><a href="/merchant/store-page" data-store-page-link>${esc(s.locale === 'ar' ? 'صفحة المتجر: العنوان والوصف والسياسات' : 'Store page: address, description, policies')}</a></p>
<section class="card"><dl>
<dt>${esc(t.currency)}</dt><dd>${esc(store.currency)}</dd>
<dt>${esc(t.embedKey)}</dt><dd><code data-embed-key>${esc(store.embed_key)}</code>
<form method="post" action="/merchant/settings/embed-key">${tokenField(s.formToken)}<button type="submit" class="secondary">${esc(t.rotateKey)}</button></form></dd>
</dl>
<h2 class="spaced"><label for="embed-snippet">${esc(t.embedSnippet)}</label></h2>
<textarea id="embed-snippet" readonly rows="3" dir="ltr" class="mono" aria-describedby="snippet-hint">${esc(snippet)}</textarea>
<span id="snippet-hint" class="hint">${esc(t.snippetHint)}</span>
${livePreview(s, store.embed_key, preview)}</section>`,
  );
}
