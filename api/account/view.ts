import type { AccountKey } from '../../shared/services/account/claims';
import { resendNonce } from '../../shared/services/fulfilment/resend';
import type { AccountLicense, AccountOrder, AccountSubscription } from '../../shared/services/account/read';
import { formatDate, DASHBOARD_STRINGS } from '../dashboard/i18n';
import { esc, STYLE } from '../dashboard/layout';
import { phoneFields, type PhoneValues } from '../dashboard/pages/sign-in/view';
import { formatAmount } from '../pay/i18n';
import type { AccountPage } from './session';

/**
 * The buyer's account's pages: server-rendered, the dashboard's stylesheet, no script, plain forms (every
 * one with the form token), every input labelled. Text from buyers and merchants is escaped; names in the
 * other script are isolated (`<bdi>`).
 */

const EXTRA = `
.store{margin:1.5rem 0 .5rem}
.order h3{font-size:1rem;margin:0 0 .5rem}
.goods{margin:.5rem 0}.goods code{display:inline-block;background:#f6f8fa;padding:.15rem .4rem;border-radius:6px;margin:.1rem 0}
.inline{display:inline-block;margin-inline-end:.5rem}.inline button{margin-top:.5rem}
.item{border-top:1px solid #d8dee4;padding:.5rem 0}
`;

export function accountDocument(p: AccountPage, title: string, body: string, header = ''): string {
  return document(p, title, body, header);
}

function document(p: AccountPage, title: string, body: string, header = ''): string {
  const brand = p.store ? p.store.name : p.t.appName;
  return `<!doctype html>
<html lang="${p.locale}" dir="${p.t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(title)} · ${esc(brand)}</title>
<style>${STYLE}${EXTRA}</style>
</head>
<body>
<header class="top"><a class="brand" href="/account"><bdi>${esc(brand)}</bdi></a>${header}<a href="${esc(p.switchHref)}" lang="${p.locale === 'ar' ? 'en' : 'ar'}">${esc(p.t.switchTo)}</a></header>
<main>${body}</main>
</body>
</html>
`;
}

const token = (formToken: string) => `<input type="hidden" name="_csrf" value="${esc(formToken)}">`;

export function messagePage(p: AccountPage, status: number, title: string, message: string) {
  return {
    status,
    html: document(
      p,
      title,
      `<div class="narrow"><div class="card"><h1>${esc(title)}</h1><p>${esc(message)}</p><p><a href="/account">${esc(p.t.home)}</a></p></div></div>`,
    ),
  };
}

export interface SignInValues {
  phone: PhoneValues;
  email: string;
  phoneError?: string | null;
  emailError?: string | null;
}

export function signInView(p: AccountPage, v: SignInValues): string {
  const dash = { locale: p.locale, t: DASHBOARD_STRINGS[p.locale], switchHref: p.switchHref };
  const emailError = v.emailError
    ? `<p id="email-error" class="field-error" role="alert">${esc(v.emailError)}</p>`
    : '';
  return document(
    p,
    p.t.signInTitle,
    `<div class="narrow"><h1>${esc(p.t.signInTitle)}</h1><p class="muted">${esc(p.t.signInIntro)}</p>
<section class="card" aria-labelledby="by-phone"><h2 id="by-phone">${esc(p.t.byPhone)}</h2>
<p class="muted">${esc(p.t.byPhoneIntro)}</p>
<form method="post" action="/account/signin/phone" novalidate>
${phoneFields(dash, v.phone, v.phoneError ?? null)}
<button type="submit" class="wide">${esc(dash.t.sendCode)}</button>
</form></section>
<section class="card" aria-labelledby="by-email"><h2 id="by-email">${esc(p.t.byEmail)}</h2>
<p class="muted">${esc(p.t.byEmailIntro)}</p>
<form method="post" action="/account/signin/email" novalidate>
<label for="email">${esc(p.t.email)}</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" dir="ltr" value="${esc(v.email)}"${v.emailError ? ' aria-invalid="true" aria-describedby="email-error"' : ''}>
${emailError}
<button type="submit" class="wide">${esc(p.t.sendLink)}</button>
</form></section></div>`,
  );
}

export function codeView(
  p: AccountPage,
  masked: string,
  opts: { error?: string; notice?: string } = {},
): string {
  const t = DASHBOARD_STRINGS[p.locale];
  return document(
    p,
    t.codeTitle,
    `<div class="narrow"><div class="card"><h1>${esc(t.codeTitle)}</h1>
<p>${esc(p.t.codeSentTo(masked))}</p>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
<form method="post" action="/account/code" novalidate>
<label for="code">${esc(t.code)}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="8" required dir="ltr"${opts.error ? ' aria-invalid="true" aria-describedby="code-error"' : ''}>
${opts.error ? `<p id="code-error" class="field-error" role="alert">${esc(opts.error)}</p>` : ''}
<button type="submit" class="wide">${esc(t.verify)}</button>
</form>
<form method="post" action="/account/code/resend"><button type="submit" class="secondary">${esc(t.resend)}</button></form>
<p><a href="/account">${esc(t.otherNumber)}</a></p></div></div>`,
  );
}

export function linkSentView(p: AccountPage, minutes: number): string {
  return document(
    p,
    p.t.linkSentTitle,
    `<div class="narrow"><div class="card"><h1>${esc(p.t.linkSentTitle)}</h1><p role="status">${esc(p.t.linkSent(minutes))}</p><p><a href="/account">${esc(p.t.home)}</a></p></div></div>`,
  );
}

function when(d: Date | null, p: AccountPage): string {
  return d ? `<span class="num">${esc(formatDate(d, p.locale))}</span>` : esc(p.t.never);
}

function licenseBlock(p: AccountPage, l: AccountLicense, formToken: string): string {
  const rows = l.activations
    .map((a) => {
      const name = a.hint ? `…${a.hint}` : `#${a.id}`;
      return `<tr><td><code>${esc(name)}</code></td><td>${when(a.first_seen_at, p)}</td><td>${when(a.last_seen_at, p)}</td>
<td><form method="post" action="/account/activations/${a.id}/deactivate">${token(formToken)}<button type="submit" class="secondary" style="margin:0" aria-label="${esc(`${p.t.deactivate} ${name}`)}">${esc(p.t.deactivate)}</button></form></td></tr>`;
    })
    .join('');
  return `<div class="goods"><strong>${esc(p.t.licenseKey)}:</strong> <code data-license>${esc(l.key)}</code>
<p class="muted">${esc(l.status)}${l.plan_name ? ` · ${esc(p.t.plan)}: <bdi>${esc(l.plan_name)}</bdi>` : ''} · ${esc(p.t.expires)}: ${when(l.expires_at, p)}${
    l.lock_type !== 'none' ? ` · ${esc(p.t.activations(l.activations.length, l.max_activations))}` : ''
  }</p>${
    rows
      ? `<div class="table-wrap"><table><caption class="muted" style="text-align:start">${esc(p.t.activations(l.activations.length, l.max_activations))}</caption><thead><tr><th scope="col">${esc(p.t.activation)}</th><th scope="col">${esc(p.t.firstSeen)}</th><th scope="col">${esc(p.t.lastSeen)}</th><th scope="col"><span class="muted">${esc(p.t.deactivate)}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
      : ''
  }${
    l.lock_type !== 'ip' && (l.status === 'active' || l.status === 'generated')
      ? `<details><summary>${esc(p.t.certificate)}</summary><form method="post" action="/account/licenses/${l.id}/certificate">${token(formToken)}<label for="hwid-${l.id}">${esc(p.t.certificateHwid)}</label><input id="hwid-${l.id}" name="hwid" required maxlength="200" dir="ltr" autocomplete="off"><button type="submit" class="secondary">${esc(p.t.certificateGet)}</button></form></details>`
      : ''
  }</div>`;
}

function reviewForm(p: AccountPage, item: AccountOrder['items'][number], formToken: string): string {
  if (!item.reviewable || item.product_id === null) return '';
  const current = item.review;
  const id = `r${item.id}`;
  const options = [5, 4, 3, 2, 1]
    .map(
      (n) => `<option value="${n}"${current?.rating === n ? ' selected' : ''}>${esc(p.t.stars(n))}</option>`,
    )
    .join('');
  return `<details><summary>${esc(p.t.review)}${current ? ` (${esc(current.published ? p.t.reviewPublished : p.t.reviewWaiting)})` : ''}</summary>
<form method="post" action="/account/reviews">${token(formToken)}<input type="hidden" name="product_id" value="${item.product_id}">
<label for="${id}-rating">${esc(p.t.rating)}</label><select id="${id}-rating" name="rating">${options}</select>
<label for="${id}-comment">${esc(p.t.comment)}</label><textarea id="${id}-comment" name="comment" rows="3" maxlength="2000">${esc(current?.comment ?? '')}</textarea>
<button type="submit">${esc(p.t.saveReview)}</button></form></details>`;
}

/** A delivered key's replacement claims (docs/account.md, "This key does not work"): history, then the form. */
function claimBlock(p: AccountPage, k: AccountKey, formToken: string): string {
  const t = p.t;
  const history = k.claims
    .map(
      (c) =>
        `<li class="claim" data-claim-status="${esc(c.status)}">${when(new Date(c.created_at), p)} · ${esc(t.claimStatus[c.status] ?? c.status)}${
          c.replacement_code
            ? ` · ${esc(t.claimReplacement)}: <code data-replacement>${esc(c.replacement_code)}</code>`
            : ''
        }${c.merchant_note ? ` · ${esc(t.claimStoreNote)}: <bdi>${esc(c.merchant_note)}</bdi>` : ''}</li>`,
    )
    .join('');
  const form = k.claimable
    ? `<details><summary>${esc(t.claimKey)}: <bdi dir="ltr">${esc(k.code)}</bdi></summary><form method="post" action="/account/keys/${k.id}/claim">${token(formToken)}<label for="claim-${k.id}">${esc(t.claimNote)}</label><textarea id="claim-${k.id}" name="note" rows="2" maxlength="1000"></textarea><button type="submit" class="secondary">${esc(t.claimSend)}</button></form></details>`
    : '';
  if (!history && !form) return '';
  return `<div class="claims" id="key-${k.id}">${history ? `<p class="muted">${esc(t.claimHistory)} (<bdi dir="ltr">${esc(k.code)}</bdi>)</p><ul class="plain">${history}</ul>` : ''}${form}</div>`;
}

function orderBlock(p: AccountPage, o: AccountOrder, formToken: string): string {
  const t = p.t;
  const items = o.items
    .map((i) => {
      const goods = [
        i.keys.length
          ? `<div class="goods"><strong>${esc(t.codes)}:</strong> ${i.keys.map((k) => (k.bad ? `<del><code data-key data-bad>${esc(k.code)}</code></del> <span class="muted">(${esc(t.keyReplaced)})</span>` : `<code data-key>${esc(k.code)}</code>`)).join(' ')}${i.keys.map((k) => claimBlock(p, k, formToken)).join('')}</div>`
          : '',
        ...i.licenses.map((l) => licenseBlock(p, l, formToken)),
        i.downloads.length
          ? `<ul class="plain goods">${i.downloads.map((d) => `<li><a href="${esc(d.url)}" download>${esc(t.download(d.name))}</a></li>`).join('')}</ul>`
          : '',
      ].join('');
      return `<div class="item"><strong><bdi>${esc(i.name)}</bdi></strong> × <span class="num">${i.quantity}</span>${goods}${reviewForm(p, i, formToken)}</div>`;
    })
    .join('');
  const canResend = o.status === 3 || o.status === 4;
  // One nonce per order and page render: a double submit is one resend (shared/services/fulfilment/resend.ts).
  const nonce = `<input type="hidden" name="nonce" value="${resendNonce()}">`;
  const resend = canResend
    ? `<form class="inline" method="post" action="/account/orders/${o.id}/send-again">${token(formToken)}${nonce}<input type="hidden" name="channel" value="message"><button type="submit" class="secondary" aria-label="${esc(`${t.sendAgainMessage}: ${t.order(o.id)}`)}">${esc(t.sendAgainMessage)}</button></form><form class="inline" method="post" action="/account/orders/${o.id}/send-again">${token(formToken)}${nonce}<input type="hidden" name="channel" value="email"><button type="submit" class="secondary" aria-label="${esc(`${t.sendAgainEmail}: ${t.order(o.id)}`)}">${esc(t.sendAgainEmail)}</button></form>`
    : '';
  const links = [
    o.document
      ? `<a href="${esc(o.document.url)}">${esc(o.document.kind === 'invoice' ? t.invoice : t.receipt)}</a>`
      : '',
    o.store.support_email
      ? `${esc(t.support)}: <a href="mailto:${esc(o.store.support_email)}" dir="ltr">${esc(o.store.support_email)}</a>`
      : '',
  ]
    .filter(Boolean)
    .join(' · ');
  return `<article class="card order" id="order-${o.id}" aria-labelledby="order-${o.id}-h"><h3 id="order-${o.id}-h">${esc(t.order(o.id))}</h3>
<p class="muted" data-store-order aria-label="${esc(t.storeOrderLabel(o.store.name, o.number))}"><bdi>${esc(o.store.name)}</bdi> <span class="num">${esc(t.storeOrder(o.number))}</span></p>
<dl><dt>${esc(t.date)}</dt><dd>${when(o.created_at, p)}</dd><dt>${esc(t.total)}</dt><dd class="num">${esc(formatAmount(o.total_minor, o.currency, p.locale))}</dd><dt>${esc(t.status)}</dt><dd><span class="badge s${o.status}">${esc(t.statuses[o.status] ?? String(o.status))}</span></dd></dl>
${items}${links ? `<p>${links}</p>` : ''}${resend}</article>`;
}

/** "Accept the new price" for an announced rise, or when it was accepted. */
function priceAnswer(p: AccountPage, s: AccountSubscription, formToken: string): string {
  if (!s.price_notice) return '';
  if (s.price_notice.accepted_at) {
    return `<p data-price-accepted>${esc(p.t.priceAcceptedOn(formatDate(s.price_notice.accepted_at, p.locale)))}</p>`;
  }
  return `<form class="inline" method="post" action="/account/subscriptions/${s.id}/accept-price">${token(formToken)}<button type="submit" aria-label="${esc(`${p.t.acceptPrice}: ${s.product_name}`)}">${esc(p.t.acceptPrice)}</button></form>`;
}

function subscriptionBlock(
  p: AccountPage,
  s: AccountSubscription,
  formToken: string,
  cardUpdatable: boolean,
): string {
  const t = p.t;
  const live = s.status === 'active' || s.status === 'past_due';
  const price = formatAmount(s.price_minor, s.currency, p.locale);
  const action = live
    ? s.cancel_at_period_end
      ? `<form method="post" action="/account/subscriptions/${s.id}/resume">${token(formToken)}<button type="submit" aria-label="${esc(`${t.resume}: ${s.product_name}`)}">${esc(t.resume)}</button></form>`
      : `<form method="post" action="/account/subscriptions/${s.id}/cancel">${token(formToken)}<button type="submit" class="danger" aria-label="${esc(`${t.cancelRenewal}: ${s.product_name}`)}">${esc(t.cancelRenewal)}</button></form>`
    : '';
  const renewals = s.renewals
    .filter((r) => r.order_id !== null)
    .map(
      (r) =>
        `<li>${when(r.created_at, p)} · <a href="#order-${r.order_id}">${esc(t.order(r.order_number ?? r.order_id!))}</a></li>`,
    )
    .join('');
  return `<article class="card" id="subscription-${s.id}" aria-labelledby="sub-${s.id}-h"><h3 id="sub-${s.id}-h"><bdi>${esc(s.product_name)}</bdi> (<bdi>${esc(s.plan_name)}</bdi>)</h3>
<p class="muted"><bdi>${esc(s.store_name)}</bdi></p>
<dl><dt>${esc(t.status)}</dt><dd>${esc(t.subStatus[s.status] ?? s.status)}</dd><dt>${esc(t.price)}</dt><dd class="num">${esc(price)}</dd>${
    s.current_period_end && live
      ? `<dt>${esc(s.cancel_at_period_end ? t.endsOn : t.nextRenewal)}</dt><dd data-period-end>${when(s.current_period_end, p)}</dd>`
      : ''
  }</dl>${
    s.next_price_minor !== null && s.next_terms_from && live && !s.cancel_at_period_end
      ? `<p data-next-price>${esc(t.nextPrice(formatAmount(s.next_price_minor, s.currency, p.locale), formatDate(s.next_terms_from, p.locale)))}</p>${
          s.next_price_minor > s.price_minor
            ? `${priceAnswer(p, s, formToken)}<form method="post" action="/account/subscriptions/${s.id}/cancel">${token(formToken)}<button type="submit" class="secondary" aria-label="${esc(`${t.declinePrice}: ${s.product_name}`)}">${esc(t.declinePrice)}</button></form>`
            : ''
        }`
      : ''
  }${
    cardUpdatable
      ? `<form method="post" action="/account/subscriptions/${s.id}/card">${token(formToken)}<p class="muted">${esc(t.cardNote)}</p><button type="submit" class="secondary" aria-label="${esc(`${t.updateCard}: ${s.product_name}`)}">${esc(t.updateCard)}</button></form>`
      : ''
  }${renewals ? `<h4>${esc(t.renewals)}</h4><ul class="plain">${renewals}</ul>` : ''}${action}</article>`;
}

export function homeView(
  p: AccountPage,
  input: {
    who: string;
    formToken: string;
    orders: AccountOrder[];
    subscriptions: AccountSubscription[];
    search: string;
    notice: string | null;
    error?: string | null;
    /** Where store pages are (`/s/{slug}`): PUBLIC_BASE_URL. */
    storeBase: string;
    /** Whether "Update the saved card" is offered for a subscription (its provider can save a card). */
    cardUpdatable: (sub: AccountSubscription) => boolean;
  },
): string {
  const t = p.t;
  // Grouped by store, the store of the newest order first; each store's orders newest first.
  const groups = new Map<number, AccountOrder[]>();
  for (const o of input.orders) groups.set(o.store.id, [...(groups.get(o.store.id) ?? []), o]);
  const stores = [...groups.values()]
    .map((orders) => {
      const store = orders[0]!.store;
      return `<section aria-labelledby="store-${store.id}"><h2 class="store" id="store-${store.id}"><a href="${esc(`${input.storeBase}/s/${encodeURIComponent(store.slug)}`)}" aria-label="${esc(t.storePage(store.name))}"><bdi>${esc(store.name)}</bdi></a></h2>${orders.map((o) => orderBlock(p, o, input.formToken)).join('')}</section>`;
    })
    .join('');
  const header = `<span class="muted">${esc(t.signedInAs)} <bdi dir="ltr">${esc(input.who)}</bdi></span>
<span><form method="post" action="/account/signout">${token(input.formToken)}<button type="submit" class="linkbtn">${esc(t.signOut)}</button></form> · <form method="post" action="/account/signout">${token(input.formToken)}<input type="hidden" name="everywhere" value="1"><button type="submit" class="linkbtn">${esc(t.signOutEverywhere)}</button></form></span>`;
  return document(
    p,
    t.signInTitle,
    `<h1>${esc(t.signInTitle)}</h1>
${input.notice ? `<p class="notice" role="status">${esc(input.notice)}</p>` : ''}${input.error ? `<p class="alert" role="alert">${esc(input.error)}</p>` : ''}
${
  input.subscriptions.length
    ? `<h2>${esc(t.subscriptions)}</h2>${input.subscriptions.map((s) => subscriptionBlock(p, s, input.formToken, input.cardUpdatable(s))).join('')}`
    : ''
}
<h2>${esc(t.orders)}</h2>
<form method="get" action="/account" class="card filters" role="search"><div><label for="q">${esc(t.search)}</label><input id="q" name="q" type="search" maxlength="100" value="${esc(input.search)}"></div><button type="submit">${esc(t.searchButton)}</button></form>
${stores || `<p class="muted">${esc(t.noOrders)}</p>`}`,
    header,
  );
}
