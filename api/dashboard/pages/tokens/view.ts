import type { MerchantTokenInfo } from '../../../../shared/services/tokens/merchant';
import { TOKEN_SCOPES } from '../../../../shared/services/tokens/merchant';
import { formatDate } from '../../i18n';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell } from '../../view-parts';

/** The API tokens page's content. */

/** The Merchant API tokens page: create (name, scope; the token shown once), the list, revoke. */
export function tokensView(
  s: Shell,
  tokens: MerchantTokenInfo[],
  opts: { created: string | null; notice: string | null; error: string | null; name: string },
): string {
  const t = s.t;
  const rows = tokens
    .map(
      (k) => `<tr><td><bdi>${esc(k.name)}</bdi><br><code>${esc(k.last4 ? `…${k.last4}` : '')}</code></td>
<td>${esc(t.scopeName[k.scope] ?? k.scope)}</td>
<td class="num">${esc(formatDate(k.created_at, s))}</td>
<td class="num">${k.last_used_at ? esc(formatDate(k.last_used_at, s)) : esc(t.neverUsed)}</td>
<td>${
        k.revoked_at
          ? esc(t.revoked)
          : `<form method="post" action="/merchant/tokens/${k.id}/revoke">${tokenField(s.formToken)}<button type="submit" class="danger" aria-label="${esc(`${t.revoke} ${k.name}`)}">${esc(t.revoke)}</button></form>`
      }</td></tr>`,
    )
    .join('');
  return shellPage(
    { ...s, current: 'tokens' },
    t.tokens,
    `<h1>${esc(t.tokens)}</h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${
  opts.created
    ? `<section class="card"><label for="new-token">${esc(t.newToken)}</label><input id="new-token" readonly dir="ltr" class="mono" value="${esc(opts.created)}"></section>`
    : ''
}
<form method="post" action="/merchant/tokens" class="card" novalidate><h2>${esc(t.createToken)}</h2>
<p class="muted">${esc(t.tokensIntro)}</p>${tokenField(s.formToken)}
<label for="token-name">${esc(t.tokenName)}</label>
<input id="token-name" name="name" maxlength="100" required autocomplete="off" value="${esc(opts.name)}"${opts.error ? ' aria-invalid="true" aria-describedby="token-name-error"' : ''}>
${opts.error ? `<p id="token-name-error" class="field-error">${esc(opts.error)}</p>` : ''}
<fieldset class="plain"><legend>${esc(t.tokenScope)}</legend>${TOKEN_SCOPES.map(
      (sc) =>
        `<label class="check"><input type="radio" name="scope" value="${sc}"${sc === 'read' ? ' checked' : ''}> ${esc(t.scopeName[sc])}</label>`,
    ).join('')}</fieldset>
<button type="submit">${esc(t.createToken)}</button></form>
<section class="card">${
      tokens.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.tokenName)}</th><th scope="col">${esc(t.tokenScope)}</th><th scope="col">${esc(t.joined)}</th><th scope="col">${esc(t.lastUsed)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noTokens)}</p>`
    }</section>`,
  );
}

export function confirmRevokeView(s: Shell, id: number, name: string): string {
  const t = s.t;
  return shellPage(
    { ...s, current: 'tokens' },
    t.confirmTitle,
    `<section class="card"><h1>${esc(t.confirmTitle)}</h1><p>${esc(t.confirmRevoke(name))}</p>
<form method="post" action="/merchant/tokens/${id}/revoke">${tokenField(s.formToken)}<input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${esc(t.yesDoIt)}</button></form>
<p><a href="/merchant/tokens">${esc(t.back)}</a></p></section>`,
  );
}
