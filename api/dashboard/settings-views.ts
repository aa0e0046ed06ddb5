import type { DeliveryRow } from '../../shared/services/dashboard/webhooks';
import type { EndpointView } from '../../shared/services/merchant/webhooks/endpoints';
import { MERCHANT_EVENT_TYPES, SUBSCRIBABLE_EVENTS } from '../../shared/services/merchant/webhooks/events';
import type { PaymentMethodView } from '../../shared/services/merchant/store-settings';
import type { MerchantTokenInfo } from '../../shared/services/merchant/tokens';
import { TOKEN_SCOPES } from '../../shared/services/merchant/tokens';
import { formatDate } from './i18n';
import { esc, shellPage, ShellContext, tokenField } from './layout';

type Shell = Omit<ShellContext, 'current'>;

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
<td class="num">${esc(formatDate(k.created_at, s.locale))}</td>
<td class="num">${k.last_used_at ? esc(formatDate(k.last_used_at, s.locale)) : esc(t.neverUsed)}</td>
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

export function webhooksView(
  s: Shell,
  endpoints: EndpointView[],
  deliveries: DeliveryRow[],
  opts: { secret: string | null; notice: string | null; error: string | null; url: string; events: string[] },
): string {
  const t = s.t;
  const endpointRows = endpoints
    .map(
      (
        e,
      ) => `<tr><td><code>${esc(e.url)}</code></td><td>${e.events.map((ev) => `<code>${esc(ev)}</code>`).join(' ')}</td>
<td class="num">${e.deliveries.delivered} / ${e.deliveries.failed} / ${e.deliveries.pending}</td>
<td><form method="post" action="/merchant/webhooks/${e.id}/test">${tokenField(s.formToken)}<label for="test-type-${e.id}">${esc(t.testEventType)}</label>
<select id="test-type-${e.id}" name="type" dir="ltr">${MERCHANT_EVENT_TYPES.map((ev) => `<option value="${esc(ev)}">${esc(ev)}</option>`).join('')}</select>
<button type="submit" class="secondary" aria-label="${esc(`${t.sendTest} ${e.url}`)}">${esc(t.sendTest)}</button></form>
<form method="post" action="/merchant/webhooks/${e.id}/delete">${tokenField(s.formToken)}<button type="submit" class="danger" aria-label="${esc(`${t.deleteEndpoint} ${e.url}`)}">${esc(t.deleteEndpoint)}</button></form></td></tr>`,
    )
    .join('');
  const deliveryRows = deliveries
    .map(
      (
        d,
      ) => `<tr><td><code>${esc(d.event_type)}</code><br><span class="muted"><code>${esc(d.endpoint_url)}</code></span></td>
<td>${esc(t.deliveryState[d.status] ?? d.status)}${d.response_status ? ` <span class="num">(${d.response_status})</span>` : ''}${d.last_error ? `<br><span class="muted">${esc(d.last_error)}</span>` : ''}</td>
<td class="num">${d.attempts}</td><td class="num">${esc(formatDate(d.created_at, s.locale))}</td>
<td><form method="post" action="/merchant/webhooks/deliveries/${d.id}/replay">${tokenField(s.formToken)}<button type="submit" class="secondary" aria-label="${esc(`${t.replay} #${d.id}`)}">${esc(t.replay)}</button></form></td></tr>`,
    )
    .join('');
  return shellPage(
    { ...s, current: 'webhooks' },
    t.webhooks,
    `<h1>${esc(t.webhooks)}</h1>
${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.secret ? `<section class="card"><label for="new-secret">${esc(t.newSecret)}</label><input id="new-secret" readonly dir="ltr" class="mono" value="${esc(opts.secret)}"></section>` : ''}
<form method="post" action="/merchant/webhooks" class="card" novalidate><h2>${esc(t.addEndpoint)}</h2>
<p class="muted">${esc(t.webhooksIntro)}</p>${tokenField(s.formToken)}
${opts.error ? `<p class="alert" role="alert" id="endpoint-error">${esc(opts.error)}</p>` : ''}
<label for="endpoint-url">${esc(t.endpointUrl)}</label>
<input id="endpoint-url" name="url" type="url" dir="ltr" required maxlength="2000" autocomplete="off" value="${esc(opts.url)}"${opts.error ? ' aria-invalid="true" aria-describedby="endpoint-error"' : ''}>
<fieldset class="plain"><legend>${esc(t.endpointEvents)}</legend><div class="checks">${SUBSCRIBABLE_EVENTS.map(
      (ev) =>
        `<label class="check"><input type="checkbox" name="events" value="${esc(ev)}"${opts.events.includes(ev) ? ' checked' : ''}> <code>${esc(ev)}</code></label>`,
    ).join('')}</div></fieldset>
<button type="submit">${esc(t.addEndpoint)}</button></form>
<section class="card"><h2>${esc(t.webhooks)}</h2>${
      endpoints.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.endpointUrl)}</th><th scope="col">${esc(t.endpointEvents)}</th><th scope="col">${esc(`${t.deliveryState.delivered} / ${t.deliveryState.failed} / ${t.deliveryState.pending}`)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${endpointRows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noEndpoints)}</p>`
    }</section>
<section class="card"><h2>${esc(t.deliveries)}</h2>${
      deliveries.length
        ? `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t.event)}</th><th scope="col">${esc(t.status)}</th><th scope="col">${esc(t.attempts)}</th><th scope="col">${esc(t.date)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${deliveryRows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noDeliveries)}</p>`
    }</section>`,
  );
}

const GATEWAY_PROVIDERS: Record<string, readonly string[]> = {
  card: ['sandbox', 'moyasar'],
  mada: ['sandbox', 'moyasar'],
  stcpay: ['sandbox', 'moyasar'],
  applepay: ['sandbox', 'moyasar'],
  coinbase: ['sandbox', 'coinbase'],
};
const CREDENTIALS = ['secret_key', 'publishable_key', 'api_key', 'webhook_secret'] as const;

/**
 * Payment methods, one form each. Credentials are password inputs that are never filled back: the page
 * says which are saved, and an empty input keeps the saved one (the Merchant API's write-only rule).
 */
export function paymentsView(
  s: Shell,
  methods: PaymentMethodView[],
  opts: { notice: string | null; errors: Record<string, string> },
): string {
  const t = s.t;
  const form = (method: string) => {
    const m = methods.find((x) => x.method === method);
    const id = (k: string) => `${method}-${k}`;
    const settings = (m?.settings ?? {}) as Record<string, string>;
    const err = opts.errors[method];
    const input = (k: string, label: string, value: string, extra = '') =>
      `<label for="${id(k)}">${esc(label)}</label><input id="${id(k)}" name="${k}" value="${esc(value)}" autocomplete="off"${extra}>`;
    let body = '';
    if (GATEWAY_PROVIDERS[method]) {
      body += `<label for="${id('provider')}">${esc(t.provider)}</label><select id="${id('provider')}" name="provider">${GATEWAY_PROVIDERS[
        method
      ]
        .map((p) => `<option value="${p}"${m?.provider === p ? ' selected' : ''}>${esc(p)}</option>`)
        .join('')}</select>`;
      for (const k of CREDENTIALS) {
        const saved = m?.credentials[k] !== undefined;
        body += `<label for="${id(k)}">${esc(t.credentialName[k])} <span class="hint" id="${id(k)}-hint">${esc(saved ? t.credentialSet : t.credentialUnset)}</span></label><input id="${id(k)}" name="${k}" type="password" autocomplete="new-password" dir="ltr" aria-describedby="${id(k)}-hint">`;
      }
    } else if (method === 'paypal') {
      body += input('email', t.paypalEmail, settings.email ?? '', ' type="email" dir="ltr"');
      body += input('pay_link', t.paypalLink, settings.pay_link ?? '', ' type="url" dir="ltr"');
    } else {
      body += input('bank_name', t.bankName, settings.bank_name ?? '');
      body += input('account_name', t.accountName, settings.account_name ?? '');
      body += input('account_number', t.accountNumber, settings.account_number ?? '', ' dir="ltr"');
      body += input('iban', t.iban, settings.iban ?? '', ' dir="ltr"');
    }
    return `<form method="post" action="/merchant/payments/${method}" class="card" novalidate>
<h2>${esc(t.methodName[method])} <span class="badge">${esc(m ? (m.active ? t.methodOn : t.inactive) : t.notConfigured)}</span></h2>${tokenField(s.formToken)}
${err ? `<p class="alert" role="alert">${esc(err)}</p>` : ''}${body}
<label class="check"><input type="checkbox" name="active" value="1"${!m || m.active ? ' checked' : ''}> ${esc(t.methodOn)}</label>
<button type="submit">${esc(t.save)}</button>${m ? ` <button type="submit" name="remove" value="1" class="danger">${esc(t.removeMethod)}</button>` : ''}</form>`;
  };
  return shellPage(
    { ...s, current: 'payments' },
    t.payments_,
    `<h1>${esc(t.payments_)}</h1>${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}
<p class="muted">${esc(t.paymentsIntro)}</p>
${['card', 'mada', 'stcpay', 'applepay', 'paypal', 'bank', 'coinbase'].map(form).join('\n')}`,
  );
}

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
<td class="num">${v.last_seen_at ? esc(formatDate(v.last_seen_at, s.locale)) : esc(t.neverUsed)}</td>
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
