import type { ClaimView } from '../../../../shared/services/fraud/claims';
import type { DisputeView } from '../../../../shared/services/fraud/disputes';
import type { OrderFraudView } from '../../../../shared/services/fraud/order-view';
import type { HeldOrder } from '../../../../shared/services/fraud/queue';
import type { RefusalView } from '../../../../shared/services/fraud/refusals';
import type { FraudSettingsView } from '../../../../shared/services/fraud/settings';
import { formatDate } from '../../i18n';
import { esc, shellPage, ShellContext, tokenField } from '../../layout';
import { money, notice } from '../../view-parts';
import { FRAUD_STRINGS } from './strings';

/** The Fraud page (docs/fraud.md): the lists, the limits, the review queue, disputes, claims, refusals. */

type Shell = Omit<ShellContext, 'current'>;

export interface FraudPageData {
  settings: FraudSettingsView;
  held: HeldOrder[];
  disputes: DisputeView[];
  claims: ClaimView[];
  refusals: RefusalView[];
}

const table = (heads: string[], rows: string[]): string =>
  `<div class="table-wrap"><table><thead><tr>${heads.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;

function settingsForm(s: Shell, v: FraudSettingsView, errors: Record<string, string>): string {
  const f = FRAUD_STRINGS[s.locale];
  const err = (k: string) => (errors[k] ? `<p class="error" id="err-${k}">${esc(errors[k])}</p>` : '');
  const described = (k: string) => (errors[k] ? ` aria-invalid="true" aria-describedby="err-${k}"` : '');
  const number = (name: string, label: string, value: number | string | null, step = '1') =>
    `<p><label for="f-${name}">${esc(label)}</label><input id="f-${name}" name="${name}" type="number" min="${step === '1' ? '1' : '0'}" step="${step}" inputmode="decimal" value="${esc(value ?? '')}"${described(name)}>${err(name)}</p>`;
  return `<section class="card"><h2>${esc(f.lists)}</h2>
<form method="post" action="/merchant/fraud/settings">${tokenField(s.formToken)}
<p><label for="f-blocked_emails">${esc(f.blockedEmails)}</label><textarea id="f-blocked_emails" name="blocked_emails" rows="4" dir="ltr"${described('blocked_emails')}>${esc(v.blocked_emails.join('\n'))}</textarea>${err('blocked_emails')}</p>
<p><label for="f-blocked_ips">${esc(f.blockedIps)}</label><textarea id="f-blocked_ips" name="blocked_ips" rows="4" dir="ltr"${described('blocked_ips')}>${esc(v.blocked_ips.join('\n'))}</textarea>${err('blocked_ips')}</p>
<h2>${esc(f.limits)}</h2><p class="muted">${esc(f.emptyOff)}</p>
${number('max_orders_per_buyer_per_day', f.maxOrders, v.max_orders_per_buyer_per_day)}
${number('max_units_per_product_per_day', f.maxUnits, v.max_units_per_product_per_day)}
${number('new_buyer_daily_limit', f.newBuyerLimit, v.new_buyer_daily_limit, '0.01')}
${number('review_above', f.reviewAbove, v.review_above, '0.01')}
${number('review_buyers_per_ip_per_hour', f.buyersPerIp, v.review_buyers_per_ip_per_hour)}
<button type="submit">${esc(f.save)}</button></form></section>`;
}

function queueSection(s: Shell, held: HeldOrder[]): string {
  const f = FRAUD_STRINGS[s.locale];
  if (held.length === 0)
    return `<section class="card"><h2>${esc(f.queue)}</h2><p class="muted">${esc(f.queueEmpty)}</p></section>`;
  const rows = held.map((o) => {
    const reasons = o.reasons.map((r) => esc(f.reasonNames[r.code] ?? r.code)).join('<br>');
    const action = (to: string, label: string, cls: string) =>
      `<form method="post" action="/merchant/fraud/orders/${o.id}/${to}">${tokenField(s.formToken)}<button type="submit" class="${cls}" aria-label="${esc(`${label} #${o.id}`)}">${esc(label)}</button></form>`;
    return `<tr><td><a href="/merchant/orders/${o.id}">#${o.id}</a></td><td><bdi>${esc(o.customer)}</bdi><br><span class="muted"><bdi>${esc(o.email)}</bdi></span></td><td class="num">${esc(money(s, o.total_minor, o.currency))}</td><td class="num">${o.score}</td><td>${reasons}</td><td>${action('approve', f.approve, '')}${action('refund', f.refund, 'secondary')}</td></tr>`;
  });
  return `<section class="card"><h2>${esc(f.queue)}</h2>${table([f.order, f.buyer, s.t.total, f.score, f.reasons, s.t.actions], rows)}</section>`;
}

function disputesSection(s: Shell, disputes: DisputeView[]): string {
  const f = FRAUD_STRINGS[s.locale];
  if (disputes.length === 0)
    return `<section class="card"><h2>${esc(f.disputes)}</h2><p class="muted">${esc(f.disputesEmpty)}</p></section>`;
  const rows = disputes.map(
    (d) =>
      `<tr><td><a href="/merchant/orders/${d.order_id}">#${d.order_id}</a></td><td class="num">${esc(`${d.amount} ${d.currency}`)}</td><td>${esc(d.reason ?? '—')}</td><td class="num">${d.deadline ? `<time datetime="${d.deadline}">${esc(formatDate(d.deadline, s))}</time>` : '—'}</td><td class="num">${esc(formatDate(d.created_at, s))}</td></tr>`,
  );
  return `<section class="card"><h2>${esc(f.disputes)}</h2>${table([f.order, s.t.total, f.reason, f.deadline, f.date], rows)}</section>`;
}

function claimsSection(s: Shell, claims: ClaimView[]): string {
  const f = FRAUD_STRINGS[s.locale];
  if (claims.length === 0)
    return `<section class="card"><h2>${esc(f.claims)}</h2><p class="muted">${esc(f.claimsEmpty)}</p></section>`;
  const rows = claims.map((c) => {
    const actions =
      c.status === 'open'
        ? `<form method="post" action="/merchant/fraud/claims/${c.id}/approve">${tokenField(s.formToken)}<button type="submit" aria-label="${esc(`${f.replaceKey} #${c.id}`)}">${esc(f.replaceKey)}</button></form>
<form method="post" action="/merchant/fraud/claims/${c.id}/decline">${tokenField(s.formToken)}<label for="decline-${c.id}">${esc(f.declineNote)}</label><input id="decline-${c.id}" name="note" required maxlength="1000"><button type="submit" class="secondary" aria-label="${esc(`${f.decline} #${c.id}`)}">${esc(f.decline)}</button></form>`
        : `${c.replacement_code ? `<bdi>${esc(c.replacement_code)}</bdi>` : ''}${c.merchant_note ? `<br><span class="muted">${esc(c.merchant_note)}</span>` : ''}`;
    return `<tr data-claim="${c.id}"><td><a href="/merchant/orders/${c.order_id}">#${c.order_id}</a></td><td><bdi>${esc(c.product_name)}</bdi><br><bdi class="muted">${esc(c.code)}</bdi></td><td>${c.buyer_note ? esc(c.buyer_note) : '—'}</td><td>${esc(f.claimStatus[c.status] ?? c.status)}</td><td>${actions}</td></tr>`;
  });
  return `<section class="card"><h2>${esc(f.claims)}</h2>${table([f.order, f.key, f.buyerNote, s.t.status, s.t.actions], rows)}</section>`;
}

function refusalsSection(s: Shell, refusals: RefusalView[]): string {
  const f = FRAUD_STRINGS[s.locale];
  if (refusals.length === 0)
    return `<section class="card"><h2>${esc(f.refusals)}</h2><p class="muted">${esc(f.refusalsEmpty)}</p></section>`;
  const rows = refusals.map(
    (r) =>
      `<tr><td class="num">${esc(formatDate(r.created_at, s))}</td><td>${esc(f.ruleNames[r.rule] ?? r.rule)}</td><td><bdi>${esc(r.matched)}</bdi></td><td><bdi>${esc(r.customer_email ?? '')}</bdi><br><span class="muted"><bdi>${esc(r.customer_phone ? `+${r.customer_phone}` : '')}</bdi> <bdi>${esc(r.client_ip ?? '')}</bdi></span></td><td>${esc(r.source)}</td></tr>`,
  );
  return `<section class="card"><h2>${esc(f.refusals)}</h2>${table([f.date, f.rule, f.matched, f.buyer, 'API'], rows)}</section>`;
}

export function fraudView(
  s: Shell,
  data: FraudPageData,
  message: string | null,
  errors: Record<string, string> = {},
  form?: FraudSettingsView,
): string {
  const f = FRAUD_STRINGS[s.locale];
  return shellPage(
    { ...s, current: 'fraud' },
    f.title,
    `<h1>${esc(f.title)}</h1>${notice(message)}
${queueSection(s, data.held)}
${claimsSection(s, data.claims)}
${disputesSection(s, data.disputes)}
${settingsForm(s, form ?? data.settings, errors)}
${refusalsSection(s, data.refusals)}`,
  );
}

/** The order page's fraud card: the risk score with its reasons, and the dispute when there is one. */
export function orderFraudSection(s: Shell, v: OrderFraudView): string {
  if (!v.risk && !v.dispute) return '';
  const f = FRAUD_STRINGS[s.locale];
  const reasons = (v.risk?.reasons ?? [])
    .map((r) => `<li>${esc(f.reasonNames[r.code] ?? r.code)} <span class="muted">(+${r.points})</span></li>`)
    .join('');
  const dispute = v.dispute
    ? `<p class="error">${esc(f.disputed)}</p><dl><dt>${esc(f.reason)}</dt><dd>${esc(v.dispute.reason ?? '—')}</dd><dt>${esc(f.deadline)}</dt><dd>${v.dispute.deadline ? esc(formatDate(v.dispute.deadline, s)) : '—'}</dd></dl>`
    : '';
  return `<section class="card" aria-labelledby="risk-h"><h2 id="risk-h">${esc(f.riskTitle)}${v.risk ? ` <span class="num" data-risk-score="${v.risk.score}">${v.risk.score}/100</span>` : ''}</h2>${reasons ? `<ul>${reasons}</ul>` : ''}${dispute}</section>`;
}
