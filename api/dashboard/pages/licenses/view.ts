import { count } from '../../view-parts';
import type { LicenseRow } from '../../../../shared/services/licenses/list';
import { LICENSE_STATUSES } from '../../../../shared/services/licenses/list';
import type { MerchantActivation, MerchantLicense } from '../../../../shared/services/licenses/merchant';
import { formatDate } from '../../i18n';
import { esc, shellPage, ShellContext, tokenField } from '../../layout';
import { notice, pager } from '../../view-parts';

/** The licenses pages' content: the list and a license with its activations. */

type Shell = Omit<ShellContext, 'current'>;

const maskKey = (key: string): string => (key.length <= 6 ? key : `…${key.slice(-6)}`);

export function licensesView(
  s: Shell,
  list: { items: LicenseRow[]; lastPage: number },
  page: number,
  filters: { status: string; key: string },
): string {
  const t = s.t;
  const rows = list.items
    .map(
      (l) => `<tr><td><a href="/merchant/licenses/${l.id}"><code>${esc(maskKey(l.key))}</code></a></td>
<td><bdi>${esc(l.product_name)}</bdi></td><td>${esc(t.licenseState[l.status] ?? l.status)}</td>
<td class="num">${esc(`${count(s, l.activations_count)} / ${count(s, l.max_activations)}`)}</td>
<td>${l.order_id ? `<a class="num" href="/merchant/orders/${l.order_id}">#${l.order_id}</a>` : '—'}</td>
<td class="num">${l.expires_at ? esc(formatDate(l.expires_at, s)) : esc(t.never)}</td></tr>`,
    )
    .join('');
  const query = new URLSearchParams();
  if (filters.status) query.set('status', filters.status);
  if (filters.key) query.set('key', filters.key);
  return shellPage(
    { ...s, current: 'licenses' },
    t.licenses,
    `<h1>${esc(t.licenses)}</h1>
<form method="get" action="/merchant/licenses" class="card filters">
<div><label for="status">${esc(t.status)}</label><select id="status" name="status"><option value="">${esc(t.anyStatus)}</option>${LICENSE_STATUSES.map((st) => `<option value="${st}"${st === filters.status ? ' selected' : ''}>${esc(t.licenseState[st] ?? st)}</option>`).join('')}</select></div>
<div><label for="key">${esc(t.licenseKey)}</label><input id="key" name="key" dir="ltr" autocomplete="off" value="${esc(filters.key)}" aria-describedby="key-hint"><span id="key-hint" class="hint">${esc(t.licenseKeyHint)}</span></div>
<button type="submit">${esc(t.filter)}</button></form>
<section class="card">${
      list.items.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.licenseKey)}</th><th scope="col">${esc(t.product)}</th><th scope="col">${esc(t.status)}</th><th scope="col">${esc(t.activations)}</th><th scope="col">${esc(t.order)}</th><th scope="col">${esc(t.expires)}</th></tr></thead><tbody>${rows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noLicenses)}</p>`
    }${pager(s, '/merchant/licenses', query, { page, last_page: list.lastPage })}</section>`,
  );
}

export function licenseView(
  s: Shell,
  l: MerchantLicense & { activations: MerchantActivation[]; product_name: string },
  message: string | null,
  error: string | null,
): string {
  const t = s.t;
  const post = (path: string, label: string, extra = '', cls = 'secondary') =>
    `<form method="post" action="/merchant/licenses/${l.id}/${path}">${tokenField(s.formToken)}${extra}<button type="submit" class="${cls}">${esc(label)}</button></form>`;
  const moves = [
    l.status === 'active' ? post('suspend', t.suspend, '', 'danger') : '',
    l.status === 'suspended' ? post('reactivate', t.reactivate) : '',
    l.activations.length ? post('reset', t.resetAll) : '',
  ].join('');
  const activations = l.activations.length
    ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.device)}</th><th scope="col">${esc(t.firstSeen)}</th><th scope="col">${esc(t.lastSeen)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${l.activations
        .map(
          (a) =>
            `<tr><td><code>${esc(a.hint ? `…${a.hint}` : '—')}</code></td><td class="num">${esc(formatDate(a.created_at, s))}</td><td class="num">${esc(formatDate(a.last_seen_at, s))}</td><td>${post('reset', t.resetOne, `<input type="hidden" name="activation_id" value="${a.id}">`)}</td></tr>`,
        )
        .join('')}</tbody></table></div>`
    : `<p class="muted">${esc(t.noActivations)}</p>`;
  return shellPage(
    { ...s, current: 'licenses' },
    t.license,
    `<p><a href="/merchant/licenses">${t.dir === 'rtl' ? '→' : '←'} ${esc(t.licenses)}</a></p>
<h1>${esc(t.license)} <code>${esc(maskKey(l.key))}</code></h1>
${notice(message)}${error ? `<p class="alert" role="alert">${esc(error)}</p>` : ''}
<section class="card"><dl>
<dt>${esc(t.status)}</dt><dd data-license-status>${esc(t.licenseState[l.status] ?? l.status)}</dd>
<dt>${esc(t.product)}</dt><dd><bdi>${esc(l.product_name)}</bdi></dd>
<dt>${esc(t.order)}</dt><dd>${l.order_id ? `<a class="num" href="/merchant/orders/${l.order_id}">#${l.order_id}</a>` : '—'}</dd>
<dt>${esc(t.activations)}</dt><dd class="num">${esc(`${count(s, l.activations_count)} / ${count(s, l.max_activations)}`)}</dd>
<dt>${esc(t.expires)}</dt><dd class="num">${l.expires_at ? esc(formatDate(l.expires_at, s)) : esc(t.never)}</dd>
</dl></section>
<section class="card actions"><h2>${esc(t.actions)}</h2>${moves || `<p class="muted">${esc(t.noActions)}</p>`}</section>
<section class="card"><h2>${esc(t.activations)}</h2>${activations}</section>`,
  );
}
