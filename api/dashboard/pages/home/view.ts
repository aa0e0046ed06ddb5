import type { HomeFigures } from '../../../../shared/services/statistics/home';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell, money } from '../../view-parts';
import { intlTag } from '../../../pay/i18n';

/** The home page's content (docs/dashboard.md). */

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

export function homeView(
  s: Shell,
  plan: string,
  f: HomeFigures,
  conversion?: Conversion,
  launch = '',
): string {
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
${launch}
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
  const tag = intlTag(s);
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
