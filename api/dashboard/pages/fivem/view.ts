import { formatDate } from '../../i18n';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell } from '../../view-parts';

/** The FiveM game servers page's content. */

export function fivemServersView(
  s: Shell,
  servers: {
    id: number;
    name: string;
    last4: string | null;
    last_seen_at: Date | null;
    revoked_at: Date | null;
  }[],
  opts: { secret: string | null; notice: string | null; error: string | null; name: string },
): string {
  const t = s.t;
  const rows = servers
    .map(
      (v) => `<tr><td><bdi>${esc(v.name)}</bdi>${v.last4 ? `<br><code>…${esc(v.last4)}</code>` : ''}</td>
<td class="num">${v.last_seen_at ? esc(formatDate(v.last_seen_at, s)) : esc(t.neverUsed)}</td>
<td>${
        v.revoked_at
          ? esc(t.revoked)
          : `<form method="post" action="/merchant/fivem/${v.id}/revoke">${tokenField(s.formToken)}<button type="submit" class="danger" aria-label="${esc(`${t.revoke} ${v.name}`)}">${esc(t.revoke)}</button></form>`
      }</td></tr>`,
    )
    .join('');
  return shellPage(
    { ...s, current: 'fivem' },
    t.fivemServers,
    `<h1>${esc(t.fivemServers)}</h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.secret ? `<section class="card"><label for="new-server-secret">${esc(t.newServerSecret)}</label><input id="new-server-secret" readonly dir="ltr" class="mono" value="${esc(opts.secret)}"></section>` : ''}
<form method="post" action="/merchant/fivem" class="card" novalidate><h2>${esc(t.addServer)}</h2>
<p class="muted">${esc(t.fivemIntro)}</p>${tokenField(s.formToken)}
<label for="server-name">${esc(t.serverName)}</label>
<input id="server-name" name="name" maxlength="100" required autocomplete="off" value="${esc(opts.name)}"${opts.error ? ' aria-invalid="true" aria-describedby="server-name-error"' : ''}>
${opts.error ? `<p id="server-name-error" class="field-error">${esc(opts.error)}</p>` : ''}
<button type="submit">${esc(t.addServer)}</button></form>
<section class="card">${
      servers.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.serverName)}</th><th scope="col">${esc(t.lastSeen)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noServers)}</p>`
    }</section>`,
  );
}
