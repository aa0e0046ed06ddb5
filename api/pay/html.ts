import type { AppContext } from '../context';
import { Locale, STRINGS } from './i18n';

/**
 * The platform's own HTML pages (hosted payment page, sandbox provider page): small, self-contained, no
 * script and no asset from elsewhere. The checkout's secret is in these addresses, so pages are never
 * cached and send no Referer to the provider they forward to.
 */
const CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "base-uri 'none'",
].join('; ');

export function escapeHtml(value: string | number): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export interface PageOptions {
  locale: Locale;
  /** The same page in the other language (the switch): the current address with `lang` set. */
  switchHref: string;
  /** Reloads the page (at `refreshUrl`, else itself) after this many seconds while something is pending. */
  refreshSeconds?: number;
  refreshUrl?: string;
}

/** A whole page around `body` (already escaped), in the locale's language and direction. */
export function layout(title: string, body: string, opts: PageOptions): string {
  const t = STRINGS[opts.locale];
  const target = opts.refreshUrl ? `;url=${escapeHtml(opts.refreshUrl)}` : '';
  const refresh = opts.refreshSeconds
    ? `<meta http-equiv="refresh" content="${opts.refreshSeconds}${target}">`
    : '';
  const other = t.switchLang;
  return `<!doctype html>
<html lang="${opts.locale}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${refresh}
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Tahoma,"Noto Sans Arabic","Noto Naskh Arabic",sans-serif;background:#f4f5f7;color:#1f2328;margin:0;line-height:1.5}
header{max-width:30rem;margin:1.5rem auto 0;display:flex;justify-content:space-between;align-items:center;padding:0 1rem;font-size:.9rem;color:#59636e}
header a{color:#1f6feb;text-decoration:none}
main{max-width:28rem;margin:.75rem auto 3rem;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 1rem}
h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
.amount{font-size:1.6rem;font-weight:600;margin:.5rem 0 1.5rem;unicode-bidi:isolate}
.muted{color:#59636e}
.error{color:#b42318;font-weight:500}
.ok{color:#1a7f37}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}dt{color:#59636e}dd{margin:0;word-break:break-all}
form{margin:.5rem 0}
fieldset{border:0;padding:0;margin:0 0 1rem}legend{font-weight:600;margin-bottom:.5rem}
.method{display:flex;align-items:center;gap:.75rem;padding:.6rem .8rem;border:1px solid #d0d7de;border-radius:8px;margin:.4rem 0;cursor:pointer}
.method:has(input:checked){border-color:#1f6feb;box-shadow:0 0 0 1px #1f6feb}
.method input{margin:0}
.mark{flex:none;display:block}
button,.button{display:block;width:100%;box-sizing:border-box;padding:.8rem 1rem;border:0;border-radius:8px;font-size:1rem;cursor:pointer;text-align:center;text-decoration:none;background:#1f6feb;color:#fff;font-family:inherit}
button.secondary,.button.secondary{background:#eaeef2;color:#1f2328}
button.danger{background:#b42318}
.order{font-size:1.2rem;font-weight:700;unicode-bidi:isolate}
bdi,.ltr{unicode-bidi:isolate}
</style>
</head>
<body>
<header><span>${escapeHtml(t.secure)}</span><a href="${escapeHtml(opts.switchHref)}" hreflang="${other}" lang="${other}">${escapeHtml(t.switchTo)}</a></header>
<main>
${body}
</main></body>
</html>
`;
}

export interface HtmlAnswer {
  status: number;
  html?: string;
  /** A redirect: 302 after a GET, 303 after a form POST (so the browser follows with a GET). */
  location?: string;
}

export function sendHtml(ctx: AppContext, answer: HtmlAnswer): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (answer.location) {
    ctx.redirect(answer.location);
    ctx.status = answer.status;
    return;
  }
  ctx.status = answer.status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', CSP);
  ctx.body = answer.html ?? '';
}
