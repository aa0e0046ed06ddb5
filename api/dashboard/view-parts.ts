import { parseMoney } from '../../shared/money';
import { formatAmount, formatCount } from '../pay/i18n';
import { esc, ShellContext } from './layout';

/** What the signed-in pages' views share: the shell, money in the store's currency, the pager, the status badge. */

export type Shell = Omit<ShellContext, 'current'>;

export const money = (s: Shell, minor: number, currency: string): string => formatAmount(minor, currency, s);
/** A count (orders, uses) in the store's digits. */
export const count = (s: Shell, n: number): string => formatCount(n, s);
export const decimalMoney = (s: Shell, amount: string, currency: string): string =>
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

export const badge = (s: Shell, status: number): string =>
  `<span class="badge s${status}">${esc(s.t.statusName[status] ?? String(status))}</span>`;

/** A page's one-line notice (a move done, a form saved), read out by screen readers. */
export const notice = (text: string | null) =>
  text ? `<p class="notice" role="status">${esc(text)}</p>` : '';
