import type { StaffMember } from '../../shared/services/dashboard/accounts';
import type { OrderEmail } from '../../shared/services/emails';
import type { CustomerRow, HomeFigures, PaymentAttempt } from '../../shared/services/dashboard/home';
import type {
  FieldRow,
  FormErrors,
  PlanRow,
  ProductForm,
  ProductRow,
} from '../../shared/services/dashboard/products';
import { BLANK_ROWS, FIELD_TYPES, PLAN_DURATIONS } from '../../shared/services/dashboard/products';
import { FORM_TYPES } from '../../shared/services/dashboard/products';
import { can, permissionForStatus } from '../../shared/services/dashboard/roles';
import type { AuditEventView } from '../../shared/services/merchant/audit';
import type { DomainStateView } from '../../shared/services/merchant/domains';
import type { OrderSummary } from '../../shared/services/merchant/orders';
import type { PageMeta } from '../../shared/services/merchant/pagination';
import { formatMoney, parseMoney } from '../../shared/money';
import type { OrderRefunds } from '../../shared/services/dashboard/refunds';
import type { DocumentLink } from '../../shared/services/invoices/read';
import { formatAmount } from '../pay/i18n';
import { formatDate } from './i18n';
import { esc, shellPage, ShellContext, tokenField } from './layout';

/** The signed-in pages' content. Each view returns a whole page through shellPage. */

type Shell = Omit<ShellContext, 'current'>;

const money = (s: Shell, minor: number, currency: string): string => formatAmount(minor, currency, s.locale);
const decimalMoney = (s: Shell, amount: string, currency: string): string =>
  money(s, parseMoney(amount, currency) ?? 0, currency);

export function pager(
  s: Shell,
  base: string,
  query: URLSearchParams,
  meta: { page: number; last_page: number },
): string {
  if (meta.last_page <= 1) return '';
  const link = (page: number, label: string, rel: string) => {
    const q = new URLSearchParams(query);
    q.set('page', String(page));
    return `<a href="${esc(`${base}?${q.toString()}`)}" rel="${rel}">${esc(label)}</a>`;
  };
  return `<nav class="pager" aria-label="${esc(s.t.pageOf(meta.page, meta.last_page))}">
${meta.page > 1 ? link(meta.page - 1, s.t.prev, 'prev') : ''}
<span class="muted">${esc(s.t.pageOf(meta.page, meta.last_page))}</span>
${meta.page < meta.last_page ? link(meta.page + 1, s.t.next, 'next') : ''}</nav>`;
}

const badge = (s: Shell, status: number): string =>
  `<span class="badge s${status}">${esc(s.t.statusName[status] ?? String(status))}</span>`;

// ---------------------------------------------------------------- home

/**
 * Thirty bars, hand-drawn. The SVG holds only the bars and stretches to the card's width at a fixed
 * height; the figures around it (the highest day, three dates) are HTML text, so they stay readable at
 * 360 px and on a desktop alike. Screen readers get the total as the image's label and each bar's day and
 * amount as its title.
 */
function salesChart(s: Shell, f: HomeFigures): string {
  const width = 300;
  const height = 100;
  const max = Math.max(...f.days.map((d) => d.sales_minor), 0);
  const scale = max > 0 ? (height - 2) / max : 0;
  const slot = width / f.days.length;
  const total = f.days.reduce((sum, d) => sum + d.sales_minor, 0);
  const bars = f.days
    .map((d, i) => {
      const h = Math.max(d.sales_minor > 0 ? 1.5 : 0, d.sales_minor * scale);
      const x = (i * slot + slot * 0.15).toFixed(2);
      return `<rect x="${x}" y="${(height - h).toFixed(2)}" width="${(slot * 0.7).toFixed(2)}" height="${h.toFixed(2)}" fill="#0b5cd5"><title>${esc(`${d.date}: ${money(s, d.sales_minor, f.currency)}`)}</title></rect>`;
    })
    .join('');
  const day = (i: number) => `<span class="num">${esc(f.days[i].date.slice(5))}</span>`;
  return `<div class="chart" dir="ltr">
<p class="muted num" style="margin:0 0 .25rem">${esc(money(s, max, f.currency))}</p>
<svg viewBox="0 0 ${width} ${height}" preserveAspectRatio="none" role="img" aria-label="${esc(s.t.chartLabel(money(s, total, f.currency)))}">${bars}</svg>
<div class="axis">${day(0)}${day(Math.floor(f.days.length / 2))}${day(f.days.length - 1)}</div></div>`;
}

/** The store's own analytics over the last 30 days (the Merchant API's statistics): paid orders per visitor. */
export interface Conversion {
  visitors: number;
  orders: number;
}

export function homeView(s: Shell, plan: string, f: HomeFigures, conversion?: Conversion): string {
  const t = s.t;
  const stat = (label: string, value: string) =>
    `<div class="stat"><span>${esc(label)}</span><b>${esc(value)}</b></div>`;
  const block = (title: string, x: HomeFigures['today']) =>
    `<h2>${esc(title)}</h2><div class="stats">${stat(t.sales, money(s, x.sales_minor, f.currency))}${stat(t.ordersCount, String(x.orders))}${stat(t.newCustomers, String(x.new_customers))}</div>`;
  const review =
    f.awaiting_review > 0
      ? `<p class="alert"><a href="/merchant/orders?status=2">${esc(t.awaitingReview(f.awaiting_review))}</a></p>`
      : '';
  return shellPage(
    { ...s, current: 'home' },
    t.home,
    `<h1><bdi>${esc(s.storeName)}</bdi> <span class="badge">${esc(t.plan[plan] ?? plan)}</span></h1>
${review}
${block(t.today, f.today)}
${block(t.thisMonth, f.month)}
${conversion ? conversionBlock(s, conversion) : ''}
<section class="card"><h2>${esc(t.chartTitle)}</h2>${salesChart(s, f)}</section>
<p class="muted">${esc(t.embedStart)}</p>
<form method="post" action="/merchant/signout">${tokenField(s.formToken)}<input type="hidden" name="everywhere" value="1"><button type="submit" class="secondary">${esc(t.signOutEverywhere)}</button></form>`,
  );
}

function conversionBlock(s: Shell, c: Conversion): string {
  const t = s.t;
  const tag = s.locale === 'ar' ? 'ar-SA-u-nu-latn' : 'en-GB';
  const rate =
    c.visitors > 0
      ? new Intl.NumberFormat(tag, { style: 'percent', maximumFractionDigits: 1 }).format(
          c.orders / c.visitors,
        )
      : '—';
  const count = (n: number) => new Intl.NumberFormat(tag).format(n);
  return `<h2>${esc(t.last30)}</h2><div class="stats">
<div class="stat"><span>${esc(t.conversion)}</span><b data-conversion>${esc(rate)}</b></div>
<div class="stat"><span>${esc(t.visitors)}</span><b>${esc(count(c.visitors))}</b></div>
<div class="stat"><span>${esc(t.paidOrders)}</span><b>${esc(count(c.orders))}</b></div></div>`;
}

// ---------------------------------------------------------------- orders

export function ordersView(
  s: Shell,
  list: { items: OrderSummary[]; meta: PageMeta },
  filters: { status: string; phone: string; from: string; to: string; product: string },
  products: { id: number; name: string }[],
): string {
  const t = s.t;
  const options = [`<option value="">${esc(t.allStatuses)}</option>`]
    .concat(
      [1, 2, 3, 4, 5, 6].map(
        (n) =>
          `<option value="${n}"${filters.status === String(n) ? ' selected' : ''}>${esc(t.statusName[n])}</option>`,
      ),
    )
    .join('');
  const rows = list.items
    .map(
      (o) => `<tr>
<td><a href="/merchant/orders/${o.id}" class="num" data-order-id="${o.id}">#${o.id}</a><span class="narrow-only muted"><br><bdi>${esc(`${o.customer.first_name} ${o.customer.last_name}`.trim())}</bdi></span></td>
<td>${badge(s, o.status)}</td>
<td class="num">${esc(decimalMoney(s, o.total, o.currency))}</td>
<td class="wide-only"><bdi>${esc(`${o.customer.first_name} ${o.customer.last_name}`.trim())}</bdi><br><span class="muted tel">+${esc(o.customer.country_code)} ${esc(o.customer.phone)}</span></td>
<td class="num wide-only">${o.created_at ? esc(formatDate(o.created_at, s.locale)) : ''}</td>
</tr>`,
    )
    .join('');
  const query = new URLSearchParams();
  if (filters.status) query.set('status', filters.status);
  if (filters.phone) query.set('phone', filters.phone);
  if (filters.from) query.set('from', filters.from);
  if (filters.to) query.set('to', filters.to);
  if (filters.product) query.set('product', filters.product);
  const productOptions = [`<option value="">${esc(t.anyProduct)}</option>`]
    .concat(
      products.map(
        (p) =>
          `<option value="${p.id}"${filters.product === String(p.id) ? ' selected' : ''}>${esc(p.name)}</option>`,
      ),
    )
    .join('');
  const table = list.items.length
    ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.order)}</th><th scope="col">${esc(t.status)}</th><th scope="col">${esc(t.total)}</th><th scope="col" class="wide-only">${esc(t.customer)}</th><th scope="col" class="wide-only">${esc(t.date)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="muted">${esc(t.noOrders)}</p>`;
  return shellPage(
    { ...s, current: 'orders' },
    t.orders,
    `<h1>${esc(t.orders)}</h1>
<form method="get" action="/merchant/orders" class="card filters">
<div><label for="status">${esc(t.status)}</label><select id="status" name="status">${options}</select></div>
<div><label for="phone">${esc(t.searchPhone)}</label><input id="phone" name="phone" type="tel" autocomplete="off" dir="ltr" maxlength="20" value="${esc(filters.phone)}"></div>
<div><label for="product">${esc(t.products)}</label><select id="product" name="product">${productOptions}</select></div>
<div><label for="from">${esc(t.fromDate)}</label><input id="from" name="from" type="date" value="${esc(filters.from)}"></div>
<div><label for="to">${esc(t.toDate)}</label><input id="to" name="to" type="date" value="${esc(filters.to)}"></div>
<button type="submit" class="secondary">${esc(t.filter)}</button>
</form>
<section class="card">${table}${pager(s, '/merchant/orders', query, list.meta)}</section>`,
  );
}

export interface OrderDetailView {
  id: number;
  status: number;
  total: string;
  subtotal: string;
  discount: string;
  currency: string;
  source: string;
  customer_note: string | null;
  customer: { first_name: string; last_name: string; email: string; country_code: string; phone: string };
  payment: { method: string | null; status: string | null; provider: string | null } | null;
  items: {
    name: string;
    quantity: number;
    total: string;
    delivered_at: string | null;
    fields: { label: string | null; value: unknown; file: { name: string } | null }[];
    codes: string[];
  }[];
  licenses: { key: string; status: string }[];
  fivem_commands: { command: string; status: string; executed_at: Date | string | null }[];
  history: { from: number | null; to: number; source: string; at: string | null }[];
  created_at: string | null;
}

/** Keys show their last four characters: the whole key is the buyer's, sent to them already. */
const maskKey = (key: string): string => (key.length <= 4 ? '••••' : `••••${key.slice(-4)}`);

export function orderView(
  s: Shell,
  o: OrderDetailView,
  allowed: readonly number[],
  notice: string | null,
  attempts: PaymentAttempt[] = [],
  extra: OrderExtras = { refunds: null, document: null, refundForm: null },
): string {
  const t = s.t;
  const payments = attempts.length
    ? `<section class="card"><h2>${esc(t.payments)}</h2><div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.method)}</th><th scope="col">${esc(t.status)}</th><th scope="col">${esc(t.total)}</th><th scope="col">${esc(t.date)}</th></tr></thead><tbody>${attempts
        .map(
          (a) =>
            `<tr><td>${esc(a.method)} <span class="muted">(${esc(a.provider)})</span></td><td>${esc(a.status)}${a.error_message ? `<br><span class="muted">${esc(a.error_message)}</span>` : ''}</td><td class="num">${esc(money(s, a.amount_minor, a.currency))}</td><td class="num">${esc(formatDate(a.created_at, s.locale))}</td></tr>`,
        )
        .join('')}</tbody></table></div></section>`
    : '';
  const items = o.items
    .map(
      (i) => `<tr><td><bdi>${esc(i.name)}</bdi>${i.fields
        .map(
          (f) =>
            `<br><span class="muted"><bdi>${esc(f.label ?? '')}</bdi>: <bdi>${esc(f.file ? f.file.name : String(f.value ?? ''))}</bdi></span>`,
        )
        .join('')}${i.codes.map((c) => `<br><code>${esc(maskKey(c))}</code>`).join('')}</td>
<td class="num">${i.quantity}</td><td class="num">${esc(decimalMoney(s, i.total, o.currency))}</td><td>${i.delivered_at ? esc(t.delivered) : ''}</td></tr>`,
    )
    .join('');
  const money_ = extra.refunds;
  // With money left to refund, the refund form (full or partial) replaces the plain "Refund order" move.
  const refundable = money_ !== null && money_.refundableMinor > 0 && can(s.role, 'orders.refund', s.grants);
  const actions = allowed
    .filter((to) => !(to === 6 && refundable))
    .filter((to) => can(s.role, permissionForStatus(to, o.status), s.grants))
    .map(
      (to) =>
        `<form method="post" action="/merchant/orders/${o.id}/status">${tokenField(s.formToken)}<input type="hidden" name="status" value="${to}"><button type="submit"${to >= 5 ? ' class="danger"' : ''}>${esc(t.moveTo[to] ?? String(to))}</button></form>`,
    )
    .join('');
  const history = o.history
    .map(
      (h) =>
        `<li><span class="num">${h.at ? esc(formatDate(h.at, s.locale)) : ''}</span> · ${h.from ? `${esc(t.statusName[h.from] ?? '')} → ` : ''}${esc(t.statusName[h.to] ?? '')} <span class="muted">(${esc(h.source)})</span></li>`,
    )
    .join('');
  const fivem = o.fivem_commands.length
    ? `<section class="card"><h2>${esc(t.fivem)}</h2><ul>${o.fivem_commands
        .map(
          (c) =>
            `<li><code>${esc(c.command)}</code> · ${esc(t.fivemState[c.status] ?? c.status)}${c.executed_at ? ` <span class="num muted">${esc(formatDate(c.executed_at, s.locale))}</span>` : ''}</li>`,
        )
        .join('')}</ul></section>`
    : '';
  const emails = extra.emails?.length
    ? `<section class="card"><h2>${esc(t.emails)}</h2><ul>${extra.emails
        .map(
          (e) =>
            `<li data-email-status="${esc(e.status)}"><bdi>${esc(e.to)}</bdi> · ${esc(t.emailState[e.status] ?? e.status)}${e.error ? `<br><span class="muted" dir="ltr">${esc(e.error)}</span>` : ''} <span class="num muted">${esc(formatDate(e.sent_at ?? e.created_at, s.locale))}</span></li>`,
        )
        .join('')}</ul></section>`
    : '';
  const licenses = o.licenses.length
    ? `<section class="card"><h2>${esc(t.licenses)}</h2><ul>${o.licenses.map((l) => `<li><code>${esc(maskKey(l.key))}</code> · ${esc(l.status)}</li>`).join('')}</ul></section>`
    : '';
  return shellPage(
    { ...s, current: 'orders' },
    `${t.order} #${o.id}`,
    `<p><a href="/merchant/orders">${s.t.dir === 'rtl' ? '→' : '←'} ${esc(t.orders)}</a></p>
<h1>${esc(t.order)} <span class="num" data-order-id="${o.id}">#${o.id}</span> ${badge(s, o.status)}</h1>
${notice ? `<p class="notice" role="status">${esc(notice)}</p>` : ''}
<section class="card"><dl>
<dt>${esc(t.total)}</dt><dd class="num">${esc(decimalMoney(s, o.total, o.currency))}</dd>
<dt>${esc(t.customer)}</dt><dd><bdi>${esc(`${o.customer.first_name} ${o.customer.last_name}`)}</bdi> · <span class="tel">+${esc(o.customer.country_code)} ${esc(o.customer.phone)}</span> · <bdi>${esc(o.customer.email)}</bdi></dd>
<dt>${esc(t.method)}</dt><dd>${esc(o.payment?.method ?? '—')}${o.payment?.status ? ` (${esc(o.payment.status)})` : ''}</dd>
<dt>${esc(t.date)}</dt><dd class="num">${o.created_at ? esc(formatDate(o.created_at, s.locale)) : ''}</dd>
${o.customer_note ? `<dt>${esc(t.note)}</dt><dd><bdi>${esc(o.customer_note)}</bdi></dd>` : ''}
</dl></section>
<section class="card"><h2>${esc(t.items)}</h2><div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.quantity)}</th><th scope="col">${esc(t.total)}</th><th scope="col"><span class="muted">${esc(t.status)}</span></th></tr></thead><tbody>${items}</tbody></table></div></section>
${payments}
${licenses}
${fivem}
${emails}
<section class="card actions"><h2>${esc(t.actions)}</h2>${actions || (refundable ? '' : `<p class="muted">${esc(t.noActions)}</p>`)}</section>
${refundable ? refundFormSection(s, o.id, money_, extra.refundForm) : ''}
${money_ && money_.refunds.length ? refundsSection(s, money_) : ''}
${extra.document ? `<section class="card"><h2>${esc(t.invoice)}</h2><p><a href="${esc(extra.document.url)}">${esc(t.openInvoice[extra.document.kind])}</a> · <a href="${esc(`${extra.document.url}/pdf`)}" download>${esc(t.invoicePdf)}</a></p></section>` : ''}
<section class="card"><h2>${esc(t.history)}</h2><ul>${history}</ul></section>
${auditSection(s, extra.audit ?? [])}`,
  );
}

/** The Merchant API writes recorded against the order (merchant_audit_events): who, what, when. */
function auditSection(s: Shell, events: AuditEventView[]): string {
  const t = s.t;
  const rows = events
    .map(
      (e) =>
        `<tr><td class="num">${esc(formatDate(e.created_at, s.locale))}</td><td><bdi>${esc(e.token ? `${e.token.name}${e.token.last4 ? ` ••••${e.token.last4}` : ''}` : e.actor)}</bdi></td><td><code>${esc(e.action)}</code></td><td><code>${esc(JSON.stringify(e.changes).slice(0, 300))}</code></td></tr>`,
    )
    .join('');
  return `<section class="card" data-audit><h2>${esc(t.auditTitle)}</h2>${
    events.length
      ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.date)}</th><th scope="col">${esc(t.auditWho)}</th><th scope="col">${esc(t.auditWhat)}</th><th scope="col">${esc(t.auditChanges)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
      : `<p class="muted">${esc(t.auditNone)}</p>`
  }</section>`;
}

export interface OrderExtras {
  refunds: OrderRefunds | null;
  /** The order's merchant_audit_events rows, newest first. */
  audit?: AuditEventView[];
  document: DocumentLink | null;
  /** The refund form as sent back with an error. */
  refundForm: { amount: string; reason: string; error: string } | null;
  /** The e-mails sent to the buyer about the order, a bounce included (docs/email.md). */
  emails?: OrderEmail[];
}

function refundFormSection(
  s: Shell,
  orderId: number,
  m: OrderRefunds,
  form: OrderExtras['refundForm'],
): string {
  const t = s.t;
  const left = money(s, m.refundableMinor, m.currency);
  const amount = form ? form.amount : formatMoney(m.refundableMinor, m.currency);
  return `<section class="card"><h2>${esc(t.refundTitle)}</h2>
<p class="muted num">${esc(t.paidRefunded(money(s, m.paidMinor, m.currency), money(s, m.refundedMinor + m.pendingMinor, m.currency)))}</p>
<form method="post" action="/merchant/orders/${orderId}/refund">${tokenField(s.formToken)}
<label for="refund-amount">${esc(t.refundAmount(m.currency))} <span class="hint" id="refund-amount-hint">${esc(t.refundAmountHint(left))}</span></label>
<input id="refund-amount" name="amount" inputmode="decimal" autocomplete="off" required value="${esc(amount)}" aria-describedby="refund-amount-hint${form ? ' refund-amount-error' : ''}"${form ? ' aria-invalid="true"' : ''} class="ltr">
${form ? `<p class="field-error" id="refund-amount-error">${esc(form.error)}</p>` : ''}
<label for="refund-reason">${esc(t.refundReason)}</label>
<input id="refund-reason" name="reason" maxlength="500" autocomplete="off" value="${esc(form?.reason ?? '')}">
<button type="submit" class="danger">${esc(t.refundButton)}</button></form></section>`;
}

function refundsSection(s: Shell, m: OrderRefunds): string {
  const t = s.t;
  return `<section class="card"><h2>${esc(t.refunds)}</h2><div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.total)}</th><th scope="col">${esc(t.status)}</th><th scope="col">${esc(t.method)}</th><th scope="col">${esc(t.date)}</th></tr></thead><tbody>${m.refunds
    .map(
      (r) =>
        `<tr><td class="num">${esc(money(s, r.amountMinor, m.currency))}</td><td>${esc(t.refundState[r.status] ?? r.status)}${r.reason ? `<br><span class="muted"><bdi>${esc(r.reason)}</bdi></span>` : ''}</td><td>${esc(t.refundKind[r.kind] ?? r.kind)}</td><td class="num">${esc(formatDate(r.createdAt, s.locale))}</td></tr>`,
    )
    .join('')}</tbody></table></div></section>`;
}

export function confirmRefundView(
  s: Shell,
  orderId: number,
  m: OrderRefunds,
  amountMinor: number,
  reason: string,
): string {
  const t = s.t;
  const full = amountMinor === m.refundableMinor;
  return shellPage(
    { ...s, current: 'orders' },
    t.confirmTitle,
    `<section class="card"><h1>${esc(t.confirmTitle)}</h1><p>${esc(t.confirmRefundAmount(money(s, amountMinor, m.currency), orderId, full))}</p>
<form method="post" action="/merchant/orders/${orderId}/refund">${tokenField(s.formToken)}<input type="hidden" name="amount" value="${esc(formatMoney(amountMinor, m.currency))}"><input type="hidden" name="reason" value="${esc(reason)}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${esc(t.yesDoIt)}</button></form>
<p><a href="/merchant/orders/${orderId}">${esc(t.back)}</a></p></section>`,
  );
}

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

export function confirmStatusView(s: Shell, orderId: number, to: number): string {
  const t = s.t;
  const text = to === 6 ? t.confirmRefund(orderId) : t.confirmCancel(orderId);
  return shellPage(
    { ...s, current: 'orders' },
    t.confirmTitle,
    `<section class="card"><h1>${esc(t.confirmTitle)}</h1><p>${esc(text)}</p>
<form method="post" action="/merchant/orders/${orderId}/status">${tokenField(s.formToken)}<input type="hidden" name="status" value="${to}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${esc(t.yesDoIt)}</button></form>
<p><a href="/merchant/orders/${orderId}">${esc(t.back)}</a></p></section>`,
  );
}

// ---------------------------------------------------------------- customers

/** A customer's latest orders, each a link to its page, and a link to all of them past the last one. */
function customerOrders(s: Shell, c: CustomerRow): string {
  if (c.recent_orders.length === 0) return '<span class="muted">—</span>';
  const list = c.recent_orders
    .map(
      (o) =>
        `<li><a href="/merchant/orders/${o.id}" class="num">#${o.id}</a> ${badge(s, o.status)} <span class="num">${esc(money(s, o.total_minor, o.currency))}</span> <span class="muted num">${esc(formatDate(o.created_at, s.locale))}</span></li>`,
    )
    .join('');
  const more =
    c.orders > c.recent_orders.length
      ? `<li><a href="/merchant/orders?phone=${esc(c.phone)}">${esc(s.t.allOrders(c.orders))}</a></li>`
      : '';
  return `<ul class="plain" aria-label="${esc(s.t.ordersOf(`${c.first_name} ${c.last_name}`))}">${list}${more}</ul>`;
}

export function customersView(
  s: Shell,
  list: { items: CustomerRow[]; total: number; lastPage: number },
  page: number,
  currency: string,
): string {
  const t = s.t;
  const rows = list.items
    .map(
      (
        c,
      ) => `<tr><td><bdi>${esc(`${c.first_name} ${c.last_name}`)}</bdi><br><span class="muted"><bdi>${esc(c.email)}</bdi></span></td>
<td><a class="tel" href="/merchant/orders?phone=${esc(c.phone)}">+${esc(c.country_code)} ${esc(c.phone)}</a></td>
<td class="num">${c.orders}</td><td class="num">${esc(money(s, c.spent_minor, currency))}</td><td class="num">${esc(formatDate(c.created_at, s.locale))}</td>
<td>${customerOrders(s, c)}</td></tr>`,
    )
    .join('');
  const table = list.items.length
    ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.customer)}</th><th scope="col">${esc(t.phone)}</th><th scope="col">${esc(t.ordersCount)}</th><th scope="col">${esc(t.spent)}</th><th scope="col">${esc(t.joined)}</th><th scope="col">${esc(t.latestOrders)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="muted">${esc(t.noCustomers)}</p>`;
  return shellPage(
    { ...s, current: 'customers' },
    t.customers,
    `<h1>${esc(t.customers)}</h1>
<section class="card">${table}${pager(s, '/merchant/customers', new URLSearchParams(), { page, last_page: list.lastPage })}</section>`,
  );
}

// ---------------------------------------------------------------- products

export function productsView(
  s: Shell,
  list: { items: ProductRow[]; meta: PageMeta },
  currency: string,
): string {
  const t = s.t;
  const rows = list.items
    .map(
      (
        p,
      ) => `<tr><td><a href="/merchant/products/${p.id}"><bdi>${esc(p.name)}</bdi></a><br><span class="muted">${esc(t.productId)} <span class="num" data-product-id="${p.id}">${p.id}</span></span></td>
<td>${esc(t.typeName[p.type] ?? p.type)}</td>
<td class="num">${esc(money(s, p.sale_price_minor ?? p.price_minor, currency))}${p.sale_price_minor !== null ? ` <s class="muted">${esc(money(s, p.price_minor, currency))}</s>` : ''}</td>
<td class="num">${p.stock === null ? esc(t.unlimited) : p.stock}</td><td>${esc(p.active ? t.yes : t.no)}</td></tr>`,
    )
    .join('');
  const table = list.items.length
    ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.type)}</th><th scope="col">${esc(t.price)}</th><th scope="col">${esc(t.stock)}</th><th scope="col">${esc(t.active)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="muted">${esc(t.noProducts)}</p>`;
  return shellPage(
    { ...s, current: 'products' },
    t.products,
    `<h1>${esc(t.products)}</h1>
<p><a class="button" href="/merchant/products/new" style="margin-top:0">${esc(t.newProduct)}</a></p>
<section class="card">${table}${pager(s, '/merchant/products', new URLSearchParams(), list.meta)}</section>`,
  );
}

export function productFormView(
  s: Shell,
  opts: {
    productId: number | null;
    values: ProductForm;
    errors: FormErrors;
    notice: string | null;
    availableCodes: number | null;
    currency: string;
    categories?: { id: number; name: string }[];
  },
): string {
  const t = s.t;
  const { values: v, errors: e } = opts;
  const categoryBoxes = (opts.categories ?? []).length
    ? `<fieldset class="plain"><legend>${esc(t.categories)}</legend><div class="checks">${(
        opts.categories ?? []
      )
        .map(
          (c) =>
            `<label class="check"><input type="checkbox" name="categories" value="${c.id}"${v.categories.includes(String(c.id)) ? ' checked' : ''}> <bdi>${esc(c.name)}</bdi></label>`,
        )
        .join('')}</div></fieldset>`
    : '';
  const lockOptions = ['none', 'hwid', 'ip']
    .map(
      (l) => `<option value="${l}"${v.license_lock === l ? ' selected' : ''}>${esc(t.lockName[l])}</option>`,
    )
    .join('');
  const fieldError = (name: keyof ProductForm) =>
    e[name]
      ? `<p id="${name}-error" class="field-error">${esc(t.fieldErrors[e[name] as string] ?? '')}</p>`
      : '';
  const invalid = (name: keyof ProductForm, described = '') =>
    e[name]
      ? ` aria-invalid="true" aria-describedby="${name}-error${described ? ` ${described}` : ''}"`
      : described
        ? ` aria-describedby="${described}"`
        : '';
  const title = opts.productId ? t.editProduct : t.newProduct;
  const action = opts.productId ? `/merchant/products/${opts.productId}` : '/merchant/products';
  const types = FORM_TYPES.map(
    (type) =>
      `<option value="${type}"${v.type === type ? ' selected' : ''}>${esc(t.typeName[type])}</option>`,
  ).join('');
  const stockNote =
    opts.availableCodes !== null && v.type === 'code'
      ? `<p class="muted">${esc(t.keysInStock(opts.availableCodes))} · <a href="/merchant/products/${opts.productId}/keys">${esc(t.uploadKeys)}</a></p>`
      : '';
  return shellPage(
    { ...s, current: 'products' },
    title,
    `<p><a href="/merchant/products">${s.t.dir === 'rtl' ? '→' : '←'} ${esc(t.products)}</a></p>
<h1>${esc(title)}${opts.productId ? ` <span class="muted num">#${opts.productId}</span>` : ''}</h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${Object.keys(e).length ? `<p class="error" role="alert">${esc(t.fixErrors)}</p>` : ''}
<form method="post" action="${action}" class="card" novalidate>
${tokenField(s.formToken)}
<label for="name">${esc(t.name)}</label>
<input id="name" name="name" required maxlength="200" value="${esc(v.name)}"${invalid('name')}>
${fieldError('name')}
<label for="type">${esc(t.type)}</label>
<select id="type" name="type"${invalid('type')}>${types}</select>
${fieldError('type')}
<div class="row">
<div><label for="price">${esc(t.price)}</label>
<input id="price" name="price" inputmode="decimal" required maxlength="16" dir="ltr" value="${esc(v.price)}"${invalid('price', 'price-hint')}>
<span id="price-hint" class="hint">${esc(opts.currency)}</span>
${fieldError('price')}</div>
<div><label for="sale_price">${esc(t.salePrice)} <span class="hint" style="display:inline">${esc(t.optional)}</span></label>
<input id="sale_price" name="sale_price" inputmode="decimal" maxlength="16" dir="ltr" value="${esc(v.sale_price)}"${invalid('sale_price')}>
${fieldError('sale_price')}</div>
</div>
<label for="stock">${esc(t.stock)}</label>
<input id="stock" name="stock" inputmode="numeric" maxlength="9" dir="ltr" value="${esc(v.stock)}"${invalid('stock', 'stock-hint')}>
<span id="stock-hint" class="hint">${esc(t.stockHint)}</span>
${fieldError('stock')}
<label for="description">${esc(t.description)}</label>
<textarea id="description" name="description" rows="4" maxlength="10000"${invalid('description')}>${esc(v.description)}</textarea>
${fieldError('description')}
<label for="codes">${esc(t.codes)}</label>
<textarea id="codes" name="codes" rows="4" dir="ltr"${invalid('codes', 'codes-hint')}>${esc(v.codes)}</textarea>
<span id="codes-hint" class="hint">${esc(t.codesHint)}</span>
${stockNote}
${fieldError('codes')}
${categoryBoxes}
<fieldset class="plain"><legend>${esc(t.licenseSettings)}</legend>
<label class="check" for="license_on"><input type="checkbox" id="license_on" name="license_on" value="1"${v.license_on ? ' checked' : ''}> ${esc(t.licenseOn)}</label>
<div class="row"><div><label for="license_prefix">${esc(t.licensePrefix)}</label>
<input id="license_prefix" name="license_prefix" maxlength="20" dir="ltr" autocomplete="off" value="${esc(v.license_prefix)}"${invalid('license_prefix')}>${fieldError('license_prefix')}</div>
<div><label for="license_lock">${esc(t.licenseLock)}</label><select id="license_lock" name="license_lock">${lockOptions}</select></div>
<div><label for="license_max">${esc(t.licenseMax)}</label>
<input id="license_max" name="license_max" inputmode="numeric" maxlength="7" dir="ltr" value="${esc(v.license_max)}"${invalid('license_max', 'license_max-hint')}><span id="license_max-hint" class="hint">${esc(t.licenseMaxHint)}</span>${fieldError('license_max')}</div></div>
</fieldset>
${plansAndFields(s, opts)}
<label for="fivem">${esc(t.fivemCommands)}</label>
<textarea id="fivem" name="fivem" rows="3" dir="ltr"${invalid('fivem', 'fivem-hint')}>${esc(v.fivem)}</textarea>
<span id="fivem-hint" class="hint">${esc(t.fivemHint)}</span>
${fieldError('fivem')}
<label class="check" for="active"><input type="checkbox" id="active" name="active" value="1"${v.active ? ' checked' : ''}> ${esc(t.active)}</label>
<button type="submit">${esc(t.save)}</button>
</form>`,
  );
}

/**
 * The product form's repeated rows: the product's plans and custom fields, then BLANK_ROWS blank ones
 * (saving shows two more). Plain inputs, no script: a blank row is ignored, a ticked "Remove" drops its row.
 */
function plansAndFields(
  s: Shell,
  opts: { values: ProductForm; errors: FormErrors; currency: string },
): string {
  const t = s.t;
  const { values: v, errors: e } = opts;
  const blankPlan: PlanRow = { id: '', name: '', price: '', duration: 'monthly', remove: false };
  const blankField: FieldRow = { label: '', type: 'text', required: false, options: '', remove: false };
  const plans = [...v.plans, ...Array.from({ length: BLANK_ROWS }, () => blankPlan)];
  const fields = [...v.fields, ...Array.from({ length: BLANK_ROWS }, () => blankField)];
  const groupError = (name: 'plans' | 'fields') =>
    e[name]
      ? `<p id="${name}-error" class="field-error" role="alert">${esc(t.fieldErrors[e[name] as string] ?? '')}</p>`
      : '';
  const invalid = (name: 'plans' | 'fields') => (e[name] ? ` aria-describedby="${name}-error"` : '');
  const planRows = plans
    .map((p, i) => {
      const n = i + 1;
      const durations = PLAN_DURATIONS.map(
        (d) =>
          `<option value="${d}"${p.duration === d ? ' selected' : ''}>${esc(t.durationName[d] ?? d)}</option>`,
      ).join('');
      return `<fieldset class="rowset"><legend>${esc(t.planN(n))}</legend>
<input type="hidden" name="plan_id" value="${esc(p.id)}">
<div class="cols"><div><label for="plan_name_${i}">${esc(t.planName)}</label>
<input id="plan_name_${i}" name="plan_name" maxlength="200" value="${esc(p.name)}"></div>
<div><label for="plan_price_${i}">${esc(t.price)} <span class="hint" style="display:inline">${esc(opts.currency)}</span></label>
<input id="plan_price_${i}" name="plan_price" inputmode="decimal" maxlength="16" dir="ltr" value="${esc(p.price)}"></div>
<div><label for="plan_duration_${i}">${esc(t.planInterval)}</label>
<select id="plan_duration_${i}" name="plan_duration">${durations}</select></div></div>
${p.id ? `<label class="check" for="plan_remove_${i}"><input type="checkbox" id="plan_remove_${i}" name="plan_remove" value="${i}"${p.remove ? ' checked' : ''}> ${esc(t.removeRow)}</label>` : ''}
</fieldset>`;
    })
    .join('');
  const fieldRows = fields
    .map((f, i) => {
      const n = i + 1;
      const types = FIELD_TYPES.map(
        (ft) =>
          `<option value="${ft}"${f.type === ft ? ' selected' : ''}>${esc(t.fieldTypeName[ft] ?? ft)}</option>`,
      ).join('');
      return `<fieldset class="rowset"><legend>${esc(t.fieldN(n))}</legend>
<div class="cols"><div><label for="field_label_${i}">${esc(t.fieldLabel)}</label>
<input id="field_label_${i}" name="field_label" maxlength="200" value="${esc(f.label)}"></div>
<div><label for="field_type_${i}">${esc(t.fieldKind)}</label>
<select id="field_type_${i}" name="field_type">${types}</select></div></div>
<label for="field_options_${i}">${esc(t.fieldOptions)}</label>
<textarea id="field_options_${i}" name="field_options" rows="2" aria-describedby="field-options-hint">${esc(f.options)}</textarea>
<label class="check" for="field_required_${i}"><input type="checkbox" id="field_required_${i}" name="field_required" value="${i}"${f.required ? ' checked' : ''}> ${esc(t.fieldRequired)}</label>
${f.label ? `<label class="check" for="field_remove_${i}"><input type="checkbox" id="field_remove_${i}" name="field_remove" value="${i}"${f.remove ? ' checked' : ''}> ${esc(t.removeRow)}</label>` : ''}
</fieldset>`;
    })
    .join('');
  return `<fieldset class="plain"${invalid('plans')}><legend>${esc(t.plans)}</legend>
<span class="hint">${esc(t.plansHint)}</span>
${groupError('plans')}
${planRows}
</fieldset>
<fieldset class="plain"${invalid('fields')}><legend>${esc(t.customFields)}</legend>
<span class="hint">${esc(t.customFieldsHint)}</span>
<span id="field-options-hint" class="hint">${esc(t.fieldOptionsHint)}</span>
${groupError('fields')}
${fieldRows}
</fieldset>`;
}

// ---------------------------------------------------------------- staff

/** What an owner grants a support member on top of the role (shared/services/dashboard/roles.ts). */
function grantsForm(s: Shell, m: StaffMember): string {
  const id = `grant-confirm-${m.id}`;
  const on = m.grants.includes('orders.confirm_payment');
  return `<form method="post" action="/merchant/staff/${m.id}/grants" style="margin:.25rem 0 0">${tokenField(s.formToken)}<label for="${id}" style="font-weight:normal"><input type="checkbox" id="${id}" name="confirm_payment" value="1"${on ? ' checked' : ''}> ${esc(s.t.grantConfirmPayment)}</label> <button type="submit" class="secondary" style="margin:0">${esc(s.t.save)}</button></form>`;
}

export function staffView(
  s: Shell,
  staff: StaffMember[],
  form: {
    values: { name: string; country_code: string; phone: string; role: string };
    error: string | null;
    notice: string | null;
  },
): string {
  const t = s.t;
  const rows = staff
    .map(
      (
        m,
      ) => `<tr><td><bdi>${esc(m.name || '—')}</bdi></td><td><span class="tel">+${esc(m.country_code)} ${esc(m.phone)}</span></td><td>${esc(t.role[m.role] ?? m.role)}${m.role === 'support' ? grantsForm(s, m) : ''}</td>
<td><form method="post" action="/merchant/staff/${m.id}/remove">${tokenField(s.formToken)}<button type="submit" class="secondary" style="margin:0">${esc(t.remove)}</button></form></td></tr>`,
    )
    .join('');
  const v = form.values;
  const roles = ['support', 'manager', 'owner']
    .map((r) => `<option value="${r}"${v.role === r ? ' selected' : ''}>${esc(t.role[r])}</option>`)
    .join('');
  return shellPage(
    { ...s, current: 'staff' },
    t.staff,
    `<h1>${esc(t.staff)}</h1>
${form.notice ? `<p class="notice" role="status">${esc(form.notice)}</p>` : ''}
<section class="card"><div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.phone)}</th><th scope="col">${esc(t.role.owner)} / ${esc(t.role.manager)} / ${esc(t.role.support)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${rows}</tbody></table></div></section>
<form method="post" action="/merchant/staff" class="card" novalidate>
<h2>${esc(t.inviteTitle)}</h2>
<p class="muted">${esc(t.staffRoles)}</p>
${tokenField(s.formToken)}
<label for="staff-name">${esc(t.name)}</label><input id="staff-name" name="name" maxlength="200" autocomplete="off" value="${esc(v.name)}">
<div class="row"><div class="cc"><label for="staff-cc">${esc(t.countryCode)}</label><input id="staff-cc" name="country_code" inputmode="numeric" maxlength="4" dir="ltr" autocomplete="off" value="${esc(v.country_code || '966')}"></div>
<div><label for="staff-phone">${esc(t.phone)}</label><input id="staff-phone" name="phone" type="tel" maxlength="25" dir="ltr" autocomplete="off" value="${esc(v.phone)}"${form.error ? ' aria-invalid="true" aria-describedby="staff-error"' : ''}></div></div>
${form.error ? `<p id="staff-error" class="field-error" role="alert">${esc(form.error)}</p>` : ''}
<label for="staff-role">${esc(t.role.owner)} / ${esc(t.role.manager)} / ${esc(t.role.support)}</label><select id="staff-role" name="role">${roles}</select>
<button type="submit">${esc(t.invite)}</button>
</form>`,
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
</ul></section>`;
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
