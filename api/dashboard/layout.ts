import type { Membership } from '../../shared/services/staff/accounts';
import type { Permission } from '../../shared/services/staff/roles';
import { can } from '../../shared/services/staff/roles';
import type { AppContext } from '../context';
import { escapeHtml } from '../pay/html';
import type { Digits, Locale } from '../pay/i18n';
import { DASHBOARD_STRINGS, DashboardStrings } from './i18n';
import { LAUNCH_TEXT } from './pages/launch/strings';

/**
 * The dashboard's page shell: server-rendered HTML, one inline stylesheet, no script and nothing loaded
 * from elsewhere (the CSP below says so). Forms are plain HTML forms: every page works without JavaScript.
 * Mobile first: one column under 720 px with the menu wrapped over as many rows as it needs, so the
 * current page's tab is always in view with no script; a side menu on wider screens.
 */
const CSP = [
  "default-src 'none'",
  // Only the dashboard's own script files (no inline script, nothing from elsewhere); every page works
  // without them.
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const esc = escapeHtml;

export interface PageContext {
  locale: Locale;
  t: DashboardStrings;
  /** The same page in the other language. */
  switchHref: string;
}

export interface ShellContext extends PageContext {
  storeName: string;
  role: Membership['role'];
  /** Permissions an owner granted on top of the role (shared/services/staff/roles.ts). */
  grants: Membership['grants'];
  memberships: Membership[];
  userName: string;
  formToken: string;
  /** The store has no payment method on: every page says so (docs/dashboard.md, "Launch checklist"). */
  noPaymentMethod?: boolean;
  /** The store's digits on Arabic pages and its time zone: dates and amounts are read in them. */
  digits: Digits;
  timeZone: string;
  current:
    | 'fraud'
    | 'home'
    | 'orders'
    | 'products'
    | 'customers'
    | 'licenses'
    | 'reviews'
    | 'staff'
    | 'settings'
    | 'tokens'
    | 'coupons'
    | 'webhooks'
    | 'categories'
    | 'payments'
    | 'fivem'
    | 'security'
    | 'einvoicing'
    | 'growth';
}

export function pageContext(ctx: AppContext, locale: Locale): PageContext {
  const query = new URLSearchParams(ctx.querystring);
  query.set('lang', locale === 'ar' ? 'en' : 'ar');
  return { locale, t: DASHBOARD_STRINGS[locale], switchHref: `${ctx.path}?${query.toString()}` };
}

/** The dashboard's one stylesheet; the buyer's account (api/account) wears it too. */
export const STYLE = `
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Tahoma,"Noto Sans Arabic","Noto Naskh Arabic",sans-serif;background:#f4f5f7;color:#1f2328;margin:0;line-height:1.5;font-size:16px}
a{color:#0b5cd5}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #0b5cd5;outline-offset:2px}
.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.6rem 1rem;background:#fff;border-bottom:1px solid #d8dee4}
.brand{font-weight:700}
.top form{display:inline}
.linkbtn{background:none;border:0;color:#0b5cd5;text-decoration:underline;cursor:pointer;font:inherit;font-weight:400;padding:0;margin:0}
.shell{display:flex;flex-direction:column;max-width:72rem;margin:0 auto}
nav ul{list-style:none;margin:0;padding:.5rem;display:flex;gap:.25rem;overflow-x:auto}
nav a{display:block;padding:.45rem .8rem;border-radius:8px;text-decoration:none;color:#1f2328;white-space:nowrap}
nav a[aria-current=page]{background:#0b5cd5;color:#fff}
main{padding:1rem;min-width:0;flex:1}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin:0 0 1rem}
.narrow{max-width:26rem;margin:2rem auto}
h1{font-size:1.35rem;margin:0 0 1rem}
h2{font-size:1.05rem;margin:0 0 .75rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
.hint{display:block;font-weight:400;color:#59636e;font-size:.875rem}
input,select,textarea{width:100%;padding:.6rem .7rem;border:1px solid #8c959f;border-radius:8px;font:inherit;background:#fff;color:inherit}
input[type=checkbox]{width:auto}
.check{display:flex;gap:.5rem;align-items:center;font-weight:600;margin:.75rem 0}
.row{display:flex;gap:.75rem}.row>*{flex:1}.row>.cc{flex:0 0 7.5rem}
button,.button{display:inline-block;padding:.65rem 1.1rem;border:0;border-radius:8px;font:inherit;font-weight:600;cursor:pointer;background:#0b5cd5;color:#fff;text-decoration:none;margin-top:1rem}
button.secondary{background:#eaeef2;color:#1f2328}
button.danger{background:#b42318}
.wide{width:100%}
.error{color:#b42318;font-weight:500}
.field-error{color:#b42318;font-size:.875rem;margin:.2rem 0 0}
.notice{background:#dafbe1;color:#116329;padding:.6rem .8rem;border-radius:8px}
.alert{background:#fff1e5;color:#953800;padding:.6rem .8rem;border-radius:8px}
.muted{color:#59636e}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.75rem;margin:0 0 1rem}
.stat{background:#fff;border-radius:12px;padding:1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.stat b{display:block;font-size:1.3rem;unicode-bidi:isolate}
.stat span{color:#59636e;font-size:.875rem}
.table-wrap{overflow-x:auto}
table{width:100%;border-collapse:collapse;font-size:.95rem}
th,td{padding:.55rem .5rem;border-bottom:1px solid #d8dee4;text-align:start;vertical-align:top}
th{color:#59636e;font-weight:600;font-size:.85rem}
.num{font-variant-numeric:tabular-nums;unicode-bidi:isolate;white-space:nowrap}
.badge{display:inline-block;padding:.1rem .5rem;border-radius:999px;font-size:.8rem;background:#eaeef2;white-space:nowrap}
.s1,.s2{background:#fff8c5}.s3{background:#ddf4ff}.s4{background:#dafbe1}.s5,.s6{background:#ffebe9}
.pager{display:flex;gap:1rem;align-items:center;margin-top:1rem}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}.filters label{margin-top:0}.filters>div{flex:1 1 10rem}.filters button{margin-top:0}
.actions form{display:inline-block;margin-inline-end:.5rem}
dl{display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem;margin:0}dt{color:#59636e}dd{margin:0;overflow-wrap:anywhere}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere;direction:ltr;unicode-bidi:isolate}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.75rem;border-radius:8px;direction:ltr;text-align:left}
.chart svg{width:100%;height:9rem;display:block;border-bottom:1px solid #d8dee4}
.axis{display:flex;justify-content:space-between;color:#59636e;font-size:.8rem;margin-top:.25rem}
.ltr,.tel{direction:ltr;unicode-bidi:isolate}
.spaced{margin-top:1rem}
progress{width:100%;height:1rem}
div.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(14rem,1fr));gap:0 1rem}div.checks .check{margin:.35rem 0;font-weight:400}
fieldset.plain{border:0;padding:0;margin:.75rem 0 0}fieldset.plain legend{font-weight:600;padding:0}
fieldset.rowset{border:1px solid #d8dee4;border-radius:8px;padding:.25rem .75rem .5rem;margin:.5rem 0;min-width:0}fieldset.rowset legend{font-weight:600;padding:0 .25rem}
ul.plain{list-style:none;margin:0;padding:0}ul.plain li{margin:0 0 .25rem}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:0 .75rem}
.preview{display:flex;flex-wrap:wrap;gap:1.25rem;align-items:center}.buy-preview.dark{background:#4493f8;color:#0d1117;box-shadow:0 0 0 .6rem #0d1117;margin:.6rem}
.buy-preview{display:inline-block;padding:.6rem 1.2rem;border-radius:8px;font-weight:600;background:#0b5cd5;color:#fff}
.narrow-only{display:none}
code.whole{display:inline-block;max-width:100%;overflow-x:auto;vertical-align:bottom;white-space:nowrap;word-break:keep-all;overflow-wrap:normal}
@media (max-width:600px){.wide-only{display:none}.narrow-only{display:inline}
table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack tr{display:block;border-bottom:1px solid #d8dee4;padding:.4rem 0}table.stack td{display:block;border:0;padding:.15rem 0}
table.stack td[data-label]::before{content:attr(data-label) ": ";color:#59636e;font-size:.85rem}}
@media (max-width:719px){nav ul{flex-wrap:wrap;overflow-x:visible;padding:.4rem .5rem;border-bottom:1px solid #d8dee4}nav a{padding:.3rem .6rem;font-size:.9rem}}
@media (min-width:720px){.shell{flex-direction:row}nav{flex:0 0 12rem}nav ul{flex-direction:column;position:sticky;top:0;padding:1rem .5rem}main{padding:1.5rem}}
`;

function document(locale: Locale, title: string, body: string): string {
  const t = DASHBOARD_STRINGS[locale];
  return `<!doctype html>
<html lang="${locale}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)} · ${esc(t.appName)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** A page outside a store: sign-in, sign-up, the code page. */
export function publicPage(p: PageContext, title: string, body: string): string {
  return document(
    p.locale,
    title,
    `<header class="top"><span class="brand">${esc(p.t.appName)}</span><a href="${esc(p.switchHref)}" lang="${p.locale === 'ar' ? 'en' : 'ar'}">${esc(p.t.switchTo)}</a></header>
<main><div class="narrow">${body}</div></main>`,
  );
}

const NAV: ReadonlyArray<[ShellContext['current'], keyof DashboardStrings, string, Permission | null]> = [
  ['home', 'home', '/merchant', null],
  ['orders', 'orders', '/merchant/orders', 'orders.view'],
  ['products', 'products', '/merchant/products', 'products.edit'],
  ['categories', 'categories', '/merchant/categories', 'products.edit'],
  ['coupons', 'coupons', '/merchant/coupons', 'products.edit'],
  ['growth', 'growth', '/merchant/growth', 'products.edit'],
  ['customers', 'customers', '/merchant/customers', 'customers.view'],
  ['licenses', 'licenses', '/merchant/licenses', 'licenses.manage'],
  ['reviews', 'reviews', '/merchant/reviews', 'reviews.moderate'],
  ['staff', 'staff', '/merchant/staff', 'staff.manage'],
  ['settings', 'settings', '/merchant/settings', 'settings.edit'],
  ['payments', 'payments_', '/merchant/payments', 'settings.edit'],
  ['tokens', 'tokens', '/merchant/tokens', 'settings.edit'],
  ['webhooks', 'webhooks', '/merchant/webhooks', 'settings.edit'],
  ['fivem', 'fivemServers', '/merchant/fivem', 'settings.edit'],
  ['einvoicing', 'einvoicing', '/merchant/einvoicing', 'settings.edit'],
  ['fraud', 'fraud', '/merchant/fraud', 'settings.edit'],
  // The person's own sign-in, whatever their role.
  ['security', 'security', '/merchant/security', null],
];

/** A page of the signed-in dashboard: the top bar (store, language, sign out), the menu, the content. */
/** The flag of a store with no payment method on, above every page's content, linking to the payments page. */
function noPaymentFlag(s: ShellContext): string {
  const l = LAUNCH_TEXT[s.locale];
  return `<p class="flag" style="background:#fff1e5;color:#953800;padding:.6rem .8rem;border-radius:8px" data-no-payment-method>${esc(l.noPaymentFlag)} <a href="/merchant/payments">${esc(l.noPaymentAction)}</a></p>`;
}

export function shellPage(s: ShellContext, title: string, body: string): string {
  const t = s.t;
  const links = NAV.filter(([, , , perm]) => perm === null || can(s.role, perm, s.grants))
    .map(
      ([key, label, href]) =>
        `<li><a href="${href}"${key === s.current ? ' aria-current="page"' : ''}>${esc(String(t[label]))}</a></li>`,
    )
    .join('');
  const switcher =
    s.memberships.length > 1
      ? `<form method="post" action="/merchant/switch"><input type="hidden" name="_csrf" value="${esc(s.formToken)}"><label for="switch-store" class="hint" style="display:inline;margin:0">${esc(t.switchStore)}</label> <select id="switch-store" name="store_id" style="width:auto">${s.memberships
          .map(
            (m) =>
              `<option value="${m.store_id}"${m.store_name === s.storeName ? ' selected' : ''}>${esc(m.store_name)}</option>`,
          )
          .join(
            '',
          )}</select> <button type="submit" class="secondary" style="margin:0;padding:.3rem .6rem">${esc(t.open)}</button></form>`
      : `<span class="brand"><bdi>${esc(s.storeName)}</bdi></span>`;
  return document(
    s.locale,
    title,
    `<header class="top">${switcher}
<span class="muted"><bdi>${esc(s.userName)}</bdi> · ${esc(t.role[s.role] ?? s.role)}</span>
<span><a href="${esc(s.switchHref)}" lang="${s.locale === 'ar' ? 'en' : 'ar'}">${esc(t.switchTo)}</a> ·
<form method="post" action="/merchant/signout"><input type="hidden" name="_csrf" value="${esc(s.formToken)}"><button type="submit" class="linkbtn">${esc(t.signOut)}</button></form></span>
</header>
<div class="shell"><nav aria-label="${esc(t.nav)}"><ul>${links}</ul></nav>
<main>${s.noPaymentMethod ? noPaymentFlag(s) : ''}${body}</main></div>`,
  );
}

export interface PageAnswer {
  status: number;
  html?: string;
  location?: string;
}

export function sendPage(ctx: AppContext, answer: PageAnswer): void {
  ctx.set('Cache-Control', 'no-store');
  // Our own forms then carry a real Origin (no-referrer would make it `null`); nothing leaks elsewhere.
  ctx.set('Referrer-Policy', 'same-origin');
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

/** A hidden form token field. */
export const tokenField = (token: string): string =>
  `<input type="hidden" name="_csrf" value="${esc(token)}">`;
