import type { Showcase } from '../../shared/services/catalogue/showcase';
import { escapeHtml } from '../pay/html';

/**
 * The sample merchant page of `npm start` (/demo/widget, development only): the demo store's products with
 * the two lines a merchant pastes, in English and Arabic, light, dark and automatic themes. It runs under a
 * strict Content-Security-Policy (no inline script or style), as a careful merchant's page would.
 */

export const DEMO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DEMO_CSS = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7fb;color:#1a1d23}
main{max-width:960px;margin:0 auto;padding:24px 16px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:16px}
.card{background:#fff;border-radius:12px;padding:16px;box-shadow:0 1px 3px rgba(0,0,0,.08);display:flex;flex-direction:column;gap:8px}
.card p{margin:0;color:#5d6470;font-size:14px;flex:1}
.price{font-weight:700}
button{font:inherit;padding:10px 14px;border-radius:8px;border:0;background:#4f46e5;color:#fff;cursor:pointer}
button.dark{background:#1a1d23}
code,pre{background:#eef0f5;border-radius:6px;padding:2px 6px;font-size:13px}
pre{padding:12px;overflow:auto}
section[lang=ar]{direction:rtl}
`;

function card(p: Showcase['products'][number], key: string, theme: string, label: string): string {
  return `<div class="card"><strong>${escapeHtml(p.name)}</strong><span class="price">${escapeHtml(p.price)}</span>
<p>${escapeHtml(p.description ?? '')}</p>
<button type="button"${theme === 'dark' ? ' class="dark"' : ''} data-matjar-product="${p.id}" data-matjar-key="${escapeHtml(key)}" data-matjar-theme="${theme}">${escapeHtml(label)}</button></div>`;
}

export function demoPage(shop: Showcase | null, base: string): string {
  if (!shop) {
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Widget demo</title></head>
<body><p>The demo store is not loaded: run <code>npm start</code> (it seeds fixtures/demo.json) or pass ?key=EMBED_KEY.</p></body></html>`;
  }
  const first = shop.products[0];
  const snippet = `<script src="${base}/widget/v1.js" async></script>
<button data-matjar-product="${first?.id ?? 1}" data-matjar-key="${shop.embedKey}">Buy now</button>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(shop.store)}: widget demo</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/demo/widget.css"></head>
<body><main>
<h1>${escapeHtml(shop.store)}</h1>
<p>A sample merchant page. Each button opens the checkout widget; the whole page is these two lines per product:</p>
<pre>${escapeHtml(snippet)}</pre>
<p>Test payments go through the sandbox provider (press <em>Pay</em> on its page); sign-in codes appear in the
<a href="/__dev/outbox?to=966500000001">dev outbox</a> (demo customer: +966 500000001). Coupons: WELCOME10, SAVE5, FREE100, CARD15.</p>
<h2>Light (automatic theme)</h2>
<div class="grid">${shop.products.map((p) => card(p, shop.embedKey, 'auto', 'Buy now')).join('\n')}</div>
<h2>Dark</h2>
<div class="grid">${shop.products.map((p) => card(p, shop.embedKey, 'dark', 'Buy now')).join('\n')}</div>
<section lang="ar"><h2>بالعربية</h2>
<div class="grid">${shop.products.map((p) => card(p, shop.embedKey, 'light', 'اشترِ الآن')).join('\n')}</div></section>
</main><script src="/widget/v1.js" async></script></body></html>`;
}
