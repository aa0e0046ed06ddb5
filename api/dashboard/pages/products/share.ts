import QRCode from 'qrcode';
import type { Locale } from '../../../pay/i18n';
import { esc, tokenField } from '../../layout';
import { LAUNCH_TEXT } from '../launch/strings';

/**
 * The product page's one "Share and sell" card (docs/store-pages.md, docs/dashboard.md "Launch checklist"):
 * the product's buy link (its store page), a QR code of it (an inline SVG made on the server), and the
 * widget snippet for a site of the merchant's own (the real product id and embed key). Each Copy button is
 * a form posting to /merchant/products/{id}/snippet-copied, which ticks the launch checklist's "share"
 * step (copying the link shares the product as much as pasting the widget does); the page's script
 * (/merchant/assets/launch.js, a file: the dashboard's CSP takes script files only) puts the text on the
 * clipboard and sends that post by fetch. Without the script the form still posts (303 back to #share)
 * and the link and snippet are selectable in read-only inputs.
 */

const TEXT = {
  en: {
    share: 'Share and sell',
    link: 'Buy link (this product’s page)',
    copyLink: 'Copy link',
    qr: 'QR code of the buy link',
    snippet: 'Widget snippet for your own site',
    open: 'Open the page',
    inactive: 'The product is not on sale: its link shows a “not found” page until it is.',
    buy: 'Buy now',
  },
  ar: {
    share: 'شارك وبِع',
    link: 'رابط الشراء (صفحة هذا المنتج)',
    copyLink: 'نسخ الرابط',
    qr: 'رمز QR لرابط الشراء',
    snippet: 'كود الزر لموقعك الخاص',
    open: 'فتح الصفحة',
    inactive: 'المنتج غير معروض للبيع: يظهر رابطه صفحة «غير موجود» حتى يُعرض.',
    buy: 'اشترِ الآن',
  },
} as const;

export interface ShareInput {
  locale: Locale;
  publicBaseUrl: string;
  storeSlug: string;
  productSlug: string;
  productId: number;
  embedKey: string;
  active: boolean;
  /** The page's form token: the Copy forms post with it. */
  formToken: string;
}

/** The buy link of a product: its page on the store's site, in the language the merchant reads. */
export function buyLink(publicBaseUrl: string, storeSlug: string, productSlug: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/s/${storeSlug}/p/${productSlug}`;
}

/** A Copy button of the card: the form that notes the copy, its button, and where "Copied" is said. */
function copyForm(input: ShareInput, source: string, label: string, extra = ''): string {
  const l = LAUNCH_TEXT[input.locale];
  return `<form method="post" action="/merchant/products/${input.productId}/snippet-copied" data-copy-form="${source}" data-copied-label="${esc(l.copied)}"${source === 'product-snippet' ? ' data-copy-snippet' : ''}>${tokenField(input.formToken)}<button type="submit" class="secondary">${esc(label)}</button>${extra} <span aria-live="polite" data-copy-status></span></form>`;
}

export async function shareCard(input: ShareInput): Promise<string> {
  const t = TEXT[input.locale];
  const l = LAUNCH_TEXT[input.locale];
  const url = buyLink(input.publicBaseUrl, input.storeSlug, input.productSlug);
  const qr = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 176 });
  const widget = `${input.publicBaseUrl.replace(/\/+$/, '')}/widget/v1.js`;
  const snippet = `<script src="${widget}" async></script>\n<button data-matjar-product="${input.productId}" data-matjar-key="${input.embedKey}">${t.buy}</button>`;
  const open = ` <a href="${esc(url)}" target="_blank" rel="noopener">${esc(t.open)}</a>`;
  return `<section class="card" id="share" aria-labelledby="share-title" data-share>
<h2 id="share-title">${esc(t.share)}</h2>
${input.active ? '' : `<p class="muted">${esc(t.inactive)}</p>`}
<label for="share-link">${esc(t.link)}</label>
<input id="share-link" readonly dir="ltr" value="${esc(url)}" data-copy-source>
${copyForm(input, 'share-link', t.copyLink, open)}
<figure><div role="img" aria-label="${esc(t.qr)}" data-qr>${qr}</div><figcaption class="hint">${esc(t.qr)}</figcaption></figure>
<h3><label for="product-snippet">${esc(t.snippet)}</label></h3>
<p class="hint" id="product-snippet-hint">${esc(l.snippetHint)}</p>
<textarea id="product-snippet" readonly rows="3" dir="ltr" class="mono" aria-describedby="product-snippet-hint">${esc(snippet)}</textarea>
${copyForm(input, 'product-snippet', l.copy)}
<script src="/merchant/assets/launch.js" defer></script></section>`;
}
