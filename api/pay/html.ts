import type { AppContext } from '../context';

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

/** A whole page around `body` (already escaped). `refreshSeconds` reloads it while something is pending. */
export function layout(title: string, body: string, opts: { refreshSeconds?: number } = {}): string {
  const refresh = opts.refreshSeconds ? `<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${refresh}
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1f2328;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:12px;padding:2rem;box-shadow:0 1px 4px rgba(0,0,0,.08)}
h1{font-size:1.35rem;margin:0 0 1rem}
.amount{font-size:1.6rem;font-weight:600;margin:.5rem 0 1.5rem}
.muted{color:#59636e}
.error{color:#b42318;font-weight:500}
dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}dt{color:#59636e}dd{margin:0;word-break:break-all}
form{margin:.5rem 0}
button,.button{display:block;width:100%;box-sizing:border-box;padding:.8rem 1rem;border:0;border-radius:8px;font-size:1rem;cursor:pointer;text-align:center;text-decoration:none;background:#1f6feb;color:#fff}
button.secondary,.button.secondary{background:#eaeef2;color:#1f2328}
button.danger{background:#b42318}
</style>
</head>
<body><main>
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
