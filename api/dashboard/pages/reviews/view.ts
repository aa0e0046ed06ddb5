import type { ReviewRow } from '../../../../shared/services/reviews/manage';
import { formatDate } from '../../i18n';
import { esc, shellPage, ShellContext, tokenField } from '../../layout';
import { notice, pager } from '../../view-parts';

/** The review moderation page's content. */

type Shell = Omit<ShellContext, 'current'>;

export function reviewsView(
  s: Shell,
  list: { items: ReviewRow[]; lastPage: number },
  page: number,
  filter: string,
  message: string | null,
): string {
  const t = s.t;
  const tabs = (['waiting', 'published', 'all'] as const)
    .map(
      (f) =>
        `<a href="/merchant/reviews?show=${f}"${f === filter ? ' aria-current="true"' : ''}>${esc(t[f])}</a>`,
    )
    .join(' · ');
  const rows = list.items
    .map(
      (
        r,
      ) => `<tr><td class="num" aria-label="${esc(t.stars(r.rating))}">${'★'.repeat(r.rating)}${'☆'.repeat(5 - r.rating)}</td>
<td>${r.comment ? `<bdi>${esc(r.comment)}</bdi>` : '—'}<br><span class="muted"><bdi>${esc(r.customer_name)}</bdi>${r.product_name ? ` · <bdi>${esc(r.product_name)}</bdi>` : ''} · <span class="num">${esc(formatDate(r.created_at, s))}</span></span></td>
<td>${esc(r.published ? t.published : t.waiting)}${r.verified ? `<br><span class="badge">${esc(t.reviewVerified)}</span>` : ''}</td>
<td><form method="post" action="/merchant/reviews/${r.id}">${tokenField(s.formToken)}<input type="hidden" name="published" value="${r.published ? '0' : '1'}"><input type="hidden" name="show" value="${esc(filter)}"><button type="submit" class="${r.published ? 'secondary' : ''}" aria-label="${esc(`${r.published ? t.hide : t.publish} #${r.id}`)}">${esc(r.published ? t.hide : t.publish)}</button></form>
<form method="post" action="/merchant/reviews/${r.id}/reply">${tokenField(s.formToken)}<input type="hidden" name="show" value="${esc(filter)}"><label for="reply-${r.id}">${esc(t.reviewReply)} #${r.id}</label><textarea id="reply-${r.id}" name="reply" rows="2" maxlength="2000">${esc(r.reply ?? '')}</textarea><button type="submit" class="secondary">${esc(t.reviewReplySave)}</button></form></td></tr>`,
    )
    .join('');
  return shellPage(
    { ...s, current: 'reviews' },
    t.reviews,
    `<h1>${esc(t.reviews)}</h1>${notice(message)}
<nav class="card" aria-label="${esc(t.show)}">${tabs}</nav>
<section class="card">${
      list.items.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.rating)}</th><th scope="col">${esc(t.comment)}</th><th scope="col">${esc(t.status)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noReviews)}</p>`
    }${pager(s, '/merchant/reviews', new URLSearchParams({ show: filter }), { page, last_page: list.lastPage })}</section>`,
  );
}
