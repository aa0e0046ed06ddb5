import type { PaymentMethodView } from '../../../../shared/services/stores/settings';
import { esc, shellPage, tokenField } from '../../layout';
import { type Shell } from '../../view-parts';

/** The payment methods page's content. */

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
