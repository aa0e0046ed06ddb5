import QRCode from 'qrcode';
import type { Locale } from '../../../pay/i18n';
import { pageScriptRoute } from '../../forms';
import { esc } from '../../layout';

/**
 * The product page's "Share" card (docs/store-pages.md): the product's buy link (its store page), a QR
 * code of it (an inline SVG made on the server), and the widget snippet for a site of the merchant's own,
 * each with a copy button. The buttons are a small script file (the dashboard's CSP takes script files
 * only); without it the link and the snippet are still there, selectable, in read-only inputs.
 */

const TEXT = {
  en: {
    share: 'Share and sell',
    link: 'Buy link (this product’s page)',
    copyLink: 'Copy link',
    copied: 'Copied',
    qr: 'QR code of the buy link',
    snippet: 'Widget snippet for your own site',
    copySnippet: 'Copy snippet',
    open: 'Open the page',
    inactive: 'The product is not on sale: its link shows a “not found” page until it is.',
  },
  ar: {
    share: 'شارك وبِع',
    link: 'رابط الشراء (صفحة هذا المنتج)',
    copyLink: 'نسخ الرابط',
    copied: 'تم النسخ',
    qr: 'رمز QR لرابط الشراء',
    snippet: 'كود الزر لموقعك الخاص',
    copySnippet: 'نسخ الكود',
    open: 'فتح الصفحة',
    inactive: 'المنتج غير معروض للبيع: يظهر رابطه صفحة «غير موجود» حتى يُعرض.',
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
}

/** The buy link of a product: its page on the store's site, in the language the merchant reads. */
export function buyLink(publicBaseUrl: string, storeSlug: string, productSlug: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/s/${storeSlug}/p/${productSlug}`;
}

export async function shareCard(input: ShareInput): Promise<string> {
  const t = TEXT[input.locale];
  const url = buyLink(input.publicBaseUrl, input.storeSlug, input.productSlug);
  const qr = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 176 });
  const widget = `${input.publicBaseUrl.replace(/\/+$/, '')}/widget/v1.js`;
  const snippet = `<script src="${widget}" async></script>\n<button data-matjar-product="${input.productId}" data-matjar-key="${input.embedKey}">Buy now</button>`;
  return `<section class="card" aria-labelledby="share-title" data-share>
<h2 id="share-title">${esc(t.share)}</h2>
${input.active ? '' : `<p class="muted">${esc(t.inactive)}</p>`}
<label for="share-link">${esc(t.link)}</label>
<input id="share-link" readonly dir="ltr" value="${esc(url)}" data-copy-source>
<p><button type="button" class="secondary" data-copy="share-link" data-copied="${esc(t.copied)}">${esc(t.copyLink)}</button>
<a href="${esc(url)}" target="_blank" rel="noopener">${esc(t.open)}</a></p>
<figure><div role="img" aria-label="${esc(t.qr)}" data-qr>${qr}</div><figcaption class="hint">${esc(t.qr)}</figcaption></figure>
<label for="share-snippet">${esc(t.snippet)}</label>
<textarea id="share-snippet" readonly rows="3" dir="ltr">${esc(snippet)}</textarea>
<p><button type="button" class="secondary" data-copy="share-snippet" data-copied="${esc(t.copied)}">${esc(t.copySnippet)}</button></p>
</section>
<script src="/merchant/assets/share.js"></script>`;
}

/** The copy buttons: the named input's value to the clipboard, and the button says so for a moment. */
const SHARE_SCRIPT = String.raw`// The product page's copy buttons (docs/store-pages.md).
(function () {
  'use strict';
  var buttons = document.querySelectorAll('button[data-copy]');
  Array.prototype.forEach.call(buttons, function (button) {
    button.addEventListener('click', function () {
      var source = document.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      var text = source.value;
      var label = button.textContent;
      function done() {
        button.textContent = button.getAttribute('data-copied');
        button.setAttribute('data-copied-at', String(Date.now()));
        setTimeout(function () { button.textContent = label; }, 2000);
      }
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () {
          source.select();
          document.execCommand('copy');
          done();
        });
      } else {
        source.select();
        document.execCommand('copy');
        done();
      }
    });
  });
})();
`;

export const shareScriptRoute = pageScriptRoute({
  path: '/merchant/assets/share.js',
  operationId: 'dashboardShareScript',
  summary: 'Merchant dashboard: the product page’s copy buttons',
  description: 'Copies the buy link or the widget snippet. The page works without it (read-only inputs).',
  source: SHARE_SCRIPT,
});
