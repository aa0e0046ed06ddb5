import type { OrderEmail } from '../../../../shared/services/emails';
import type { PaymentAttempt } from '../../../../shared/services/statistics/home';
import { can, permissionForStatus } from '../../../../shared/services/staff/roles';
import type { AuditEventView } from '../../../../shared/services/audit';
import type { OrderSummary } from '../../../../shared/services/orders/read';
import type { PageMeta } from '../../../../shared/pagination';
import { formatMoney } from '../../../../shared/money';
import type { OrderRefunds } from '../../../../shared/services/refunds/order-refunds';
import type { DocumentLink } from '../../../../shared/services/invoices/read';
import { formatDate } from '../../i18n';
import { LAUNCH_TEXT } from '../launch/strings';
import { PAYMENT_METHOD_NAMES } from '../../../../shared/services/payment-methods';
import type { PaymentMethodId } from '../../../../db/models';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell, money, decimalMoney, pager, badge, count } from '../../view-parts';
import { emailPurpose, resendSection } from './resend';
import { labelOf, ORDER_LABELS } from './labels';

/** The orders pages' content: the list, an order, its refunds, the confirmations. */

// ---------------------------------------------------------------- orders

/** A payment method's name in the page's language (the Embed API's names), or a dash. */
function methodWords(s: Shell, method: string | null | undefined): string {
  const names = method ? PAYMENT_METHOD_NAMES[method as PaymentMethodId] : undefined;
  if (!names) return method ?? '—';
  return s.locale === 'ar' ? names.name_ar : names.name_en;
}

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
<td><a href="/merchant/orders/${o.id}" class="num" data-order-id="${o.id}" data-order-number="${o.number}">#${o.number}</a> <span class="muted num order-id">${esc(LAUNCH_TEXT[s.locale].orderId)} ${o.id}</span><span class="narrow-only muted"><br><bdi>${esc(`${o.customer.first_name} ${o.customer.last_name}`.trim())}</bdi></span></td>
<td>${badge(s, o.status)}</td>
<td class="num">${esc(decimalMoney(s, o.total, o.currency))}</td>
<td class="wide-only"><bdi>${esc(`${o.customer.first_name} ${o.customer.last_name}`.trim())}</bdi><br><span class="muted tel">+${esc(o.customer.country_code)} ${esc(o.customer.phone)}</span></td>
<td class="num wide-only">${o.created_at ? esc(formatDate(o.created_at, s)) : ''}</td>
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
  number: number;
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

/** Subtotal and discount above the total, when a coupon took something off. */
function discountLines(s: Shell, o: OrderDetailView): string {
  const L = ORDER_LABELS[s.locale];
  if (!o.discount || Number(o.discount) === 0) return '';
  return `<dt>${esc(L.subtotal)}</dt><dd class="num">${esc(decimalMoney(s, o.subtotal, o.currency))}</dd>
<dt>${esc(L.discount)}</dt><dd class="num" data-discount>−${esc(decimalMoney(s, o.discount, o.currency))}</dd>
`;
}

export function orderView(
  s: Shell,
  o: OrderDetailView,
  allowed: readonly number[],
  notice: string | null,
  attempts: PaymentAttempt[] = [],
  extra: OrderExtras = { refunds: null, document: null, refundForm: null },
): string {
  const t = s.t;
  const L = ORDER_LABELS[s.locale];
  const payments = attempts.length
    ? `<section class="card"><h2>${esc(t.payments)}</h2><div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.method)}</th><th scope="col">${esc(t.status)}</th><th scope="col">${esc(t.total)}</th><th scope="col">${esc(t.date)}</th></tr></thead><tbody>${attempts
        .map(
          (a) =>
            `<tr><td data-method="${esc(a.method)}">${esc(methodWords(s, a.method))} <span class="muted">(${esc(labelOf(L.provider, a.provider))})</span></td><td data-payment-status="${esc(a.status)}">${esc(LAUNCH_TEXT[s.locale].paymentStatus[a.status] ?? '—')}${a.error_message ? `<br><span class="muted">${esc(a.error_message)}</span>` : ''}</td><td class="num">${esc(money(s, a.amount_minor, a.currency))}</td><td class="num">${esc(formatDate(a.created_at, s))}</td></tr>`,
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
<td class="num">${esc(count(s, i.quantity))}</td><td class="num">${esc(decimalMoney(s, i.total, o.currency))}</td><td>${i.delivered_at ? esc(t.delivered) : ''}</td></tr>`,
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
        `<li><span class="num">${h.at ? esc(formatDate(h.at, s)) : ''}</span> · ${h.from ? `${esc(t.statusName[h.from] ?? '')} ${t.dir === 'rtl' ? '←' : '→'} ` : ''}${esc(t.statusName[h.to] ?? '')} <span class="muted" data-source="${esc(h.source)}">(${esc(labelOf(L.source, h.source))})</span></li>`,
    )
    .join('');
  const fivem = o.fivem_commands.length
    ? `<section class="card"><h2>${esc(t.fivem)}</h2><ul>${o.fivem_commands
        .map(
          (c) =>
            `<li><code>${esc(c.command)}</code> · ${esc(t.fivemState[c.status] ?? c.status)}${c.executed_at ? ` <span class="num muted">${esc(formatDate(c.executed_at, s))}</span>` : ''}</li>`,
        )
        .join('')}</ul></section>`
    : '';
  const emails = extra.emails?.length
    ? `<section class="card"><h2>${esc(t.emails)}</h2><ul>${extra.emails
        .map(
          (e) =>
            `<li data-email-status="${esc(e.status)}" data-email-purpose="${esc(e.purpose)}"><strong>${esc(emailPurpose(s, e))}</strong> · <bdi>${esc(e.to)}</bdi> · ${esc(t.emailState[e.status] ?? e.status)}${e.error ? `<br><span class="muted" dir="ltr">${esc(e.error)}</span>` : ''} <span class="num muted">${esc(formatDate(e.sent_at ?? e.created_at, s))}</span></li>`,
        )
        .join('')}</ul></section>`
    : '';
  const licenses = o.licenses.length
    ? `<section class="card"><h2>${esc(t.licenses)}</h2><ul>${o.licenses.map((l) => `<li><code>${esc(maskKey(l.key))}</code> · ${esc(l.status)}</li>`).join('')}</ul></section>`
    : '';
  return shellPage(
    { ...s, current: 'orders' },
    `${t.order} #${o.number}`,
    `<p><a href="/merchant/orders">${s.t.dir === 'rtl' ? '→' : '←'} ${esc(t.orders)}</a></p>
<h1>${esc(t.order)} <span class="num" data-order-number="${o.number}">#${o.number}</span> ${badge(s, o.status)}</h1>
<p class="muted">${esc(LAUNCH_TEXT[s.locale].orderId)} <span class="num" data-order-id="${o.id}">${o.id}</span></p>
${notice ? `<p class="notice" role="status">${esc(notice)}</p>` : ''}
<section class="card"><dl>
${discountLines(s, o)}<dt>${esc(t.total)}</dt><dd class="num">${esc(decimalMoney(s, o.total, o.currency))}</dd>
<dt>${esc(t.customer)}</dt><dd><bdi>${esc(`${o.customer.first_name} ${o.customer.last_name}`)}</bdi> · <span class="tel">+${esc(o.customer.country_code)} ${esc(o.customer.phone)}</span> · <bdi>${esc(o.customer.email)}</bdi></dd>
<dt>${esc(t.method)}</dt><dd data-payment-method="${esc(o.payment?.method ?? '')}">${esc(methodWords(s, o.payment?.method))}${o.payment?.status ? ` (${esc(LAUNCH_TEXT[s.locale].paymentStatus[o.payment.status] ?? o.payment.status)})` : ''}</dd>
<dt>${esc(t.date)}</dt><dd class="num">${o.created_at ? esc(formatDate(o.created_at, s)) : ''}</dd>
${o.customer_note ? `<dt>${esc(t.note)}</dt><dd><bdi>${esc(o.customer_note)}</bdi></dd>` : ''}
</dl></section>
<section class="card"><h2>${esc(t.items)}</h2><div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.name)}</th><th scope="col">${esc(t.quantity)}</th><th scope="col">${esc(t.total)}</th><th scope="col"><span class="muted">${esc(t.status)}</span></th></tr></thead><tbody>${items}</tbody></table></div></section>
${payments}
${licenses}
${fivem}
${emails}
<section class="card actions"><h2>${esc(t.actions)}</h2>${actions || (refundable ? '' : `<p class="muted">${esc(t.noActions)}</p>`)}</section>
${extra.resendable && can(s.role, 'orders.advance', s.grants) ? resendSection(s, o.id, Boolean(o.customer.email)) : ''}
${refundable ? refundFormSection(s, o.id, money_, extra.refundForm) : ''}
${money_ && money_.refunds.length ? refundsSection(s, money_) : ''}
${extra.fraud ?? ''}
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
        `<tr><td class="num">${esc(formatDate(e.created_at, s))}</td><td><bdi>${esc(e.token ? `${e.token.name}${e.token.last4 ? ` ••••${e.token.last4}` : ''}` : e.actor)}</bdi></td><td><code>${esc(e.action)}</code></td><td><code>${esc(JSON.stringify(e.changes).slice(0, 300))}</code></td></tr>`,
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
  /** The fraud controls' card (risk score and reasons, dispute), rendered by pages/fraud/view.ts. */
  fraud?: string;
  /** The order's merchant_audit_events rows, newest first. */
  audit?: AuditEventView[];
  document: DocumentLink | null;
  /** The refund form as sent back with an error. */
  refundForm: { amount: string; reason: string; error: string } | null;
  /** The e-mails sent to the buyer about the order, a bounce included (docs/email.md). */
  emails?: OrderEmail[];
  /** The order is paid and has goods to send: the "send the delivery again" card shows. */
  resendable?: boolean;
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
        `<tr><td class="num">${esc(money(s, r.amountMinor, m.currency))}</td><td>${esc(t.refundState[r.status] ?? r.status)}${r.reason ? `<br><span class="muted"><bdi>${esc(r.reason)}</bdi></span>` : ''}${r.status === 'failed' ? `<br><span class="field-error">${esc(t.refundDeclined)}</span>` : ''}</td><td>${esc(t.refundKind[r.kind] ?? r.kind)}</td><td class="num">${esc(formatDate(r.createdAt, s))}</td></tr>`,
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
    `<section class="card"><h1>${esc(t.confirmTitle)}</h1><p>${esc(t.confirmRefundAmount(money(s, amountMinor, m.currency), m.number, full))}</p>
<form method="post" action="/merchant/orders/${orderId}/refund">${tokenField(s.formToken)}<input type="hidden" name="amount" value="${esc(formatMoney(amountMinor, m.currency))}"><input type="hidden" name="reason" value="${esc(reason)}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${esc(t.yesDoIt)}</button></form>
<p><a href="/merchant/orders/${orderId}">${esc(t.back)}</a></p></section>`,
  );
}

export function confirmStatusView(s: Shell, orderId: number, orderNumber: number, to: number): string {
  const t = s.t;
  const text = to === 6 ? t.confirmRefund(orderNumber) : t.confirmCancel(orderNumber);
  return shellPage(
    { ...s, current: 'orders' },
    t.confirmTitle,
    `<section class="card"><h1>${esc(t.confirmTitle)}</h1><p>${esc(text)}</p>
<form method="post" action="/merchant/orders/${orderId}/status">${tokenField(s.formToken)}<input type="hidden" name="status" value="${to}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${esc(t.yesDoIt)}</button></form>
<p><a href="/merchant/orders/${orderId}">${esc(t.back)}</a></p></section>`,
  );
}
