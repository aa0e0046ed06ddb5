import type { CustomerRow } from '../../../../shared/services/statistics/home';
import { formatDate } from '../../i18n';
import { esc, shellPage } from '../../layout';
import { type Shell, money, pager, badge, count } from '../../view-parts';

/** The customers page's content. */

// ---------------------------------------------------------------- customers

/** A customer's latest orders, each a link to its page, and a link to all of them past the last one. */
function customerOrders(s: Shell, c: CustomerRow): string {
  if (c.recent_orders.length === 0) return '<span class="muted">—</span>';
  const list = c.recent_orders
    .map(
      (o) =>
        `<li><a href="/merchant/orders/${o.id}" class="num" data-order-number="${o.number}">#${o.number}</a> ${badge(s, o.status)} <span class="num">${esc(money(s, o.total_minor, o.currency))}</span> <span class="muted num">${esc(formatDate(o.created_at, s))}</span></li>`,
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
      ) => `<tr><td><bdi>${esc(`${c.first_name} ${c.last_name}`)}</bdi>${c.guest ? ` <span class="badge" data-guest>${esc(t.guestBuyer)}</span>` : ''}<br><span class="muted"><bdi>${esc(c.email)}</bdi></span></td>
<td><a class="tel" href="/merchant/orders?phone=${esc(c.phone)}">+${esc(c.country_code)} ${esc(c.phone)}</a></td>
<td class="num">${esc(count(s, c.orders))}</td><td class="num">${esc(money(s, c.spent_minor, currency))}</td><td class="num">${esc(formatDate(c.created_at, s))}</td>
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
