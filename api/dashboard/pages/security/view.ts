import type { SecondFactorStatus } from '../../../../shared/services/staff/second-factor';
import type { SessionRow } from '../../../../shared/services/staff/session-list';
import { esc, shellPage, ShellContext, tokenField } from '../../layout';

type Shell = Omit<ShellContext, 'current'>;

export interface SecurityPage {
  status: SecondFactorStatus;
  /** While setting up: the otpauth:// URI and its QR code (an SVG drawn on the server). */
  setup: { uri: string; qrSvg: string } | null;
  /** Right after switching on: the recovery codes, shown this once. */
  recoveryCodes: string[] | null;
  notice: string | null;
  error: string | null;
  /** The person's live sessions ("keep me signed in" ones included), each revocable; `current` is this one. */
  sessions?: { rows: SessionRow[]; current: number };
}

/** The sessions card: each live session with its device and last use, and a button to end it. */
function sessionsCard(s: Shell, list: { rows: SessionRow[]; current: number }): string {
  const ar = s.locale === 'ar';
  const when = (d: Date) => new Date(d).toISOString().slice(0, 16).replace('T', ' ');
  const rows = list.rows
    .map((r) => {
      const label = `${r.user_agent ?? (ar ? 'جهاز غير معروف' : 'Unknown device')}`;
      const mine =
        r.id === list.current ? ` <strong>${esc(ar ? '(هذا الجهاز)' : '(this device)')}</strong>` : '';
      return `<li data-session="${r.id}"><bdi>${esc(label.slice(0, 120))}</bdi>${mine}<br><span class="muted num" dir="ltr">${esc(when(r.last_seen_at))} UTC</span>
<form method="post" action="/merchant/security/sessions/${r.id}/revoke" class="inline">${tokenField(s.formToken)}<button type="submit" class="secondary" aria-label="${esc(`${ar ? 'إنهاء الجلسة' : 'End session'} ${label.slice(0, 60)}`)}">${esc(ar ? 'إنهاء' : 'End')}</button></form></li>`;
    })
    .join('');
  return `<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">${esc(ar ? 'الأجهزة المسجّلة' : 'Signed-in devices')}</h2>
<ul class="plain">${rows}</ul></section>`;
}

const codeInput = (id: string, error: string | null): string =>
  `<input id="${id}" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="6" required dir="ltr"${error ? ` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
${error ? `<p id="${id}-error" class="field-error" role="alert">${esc(error)}</p>` : ''}`;

/** The person's two-step sign-in: switch an authenticator app on (QR, key, first code), or off. */
export function securityView(s: Shell, page: SecurityPage): string {
  const t = s.t;
  const { status } = page;
  let body: string;
  if (page.recoveryCodes) {
    body = `<section class="card"><h2>${esc(t.recoveryCodesTitle)}</h2>
<p>${esc(t.recoveryCodesHint)}</p>
<ul class="mono" dir="ltr" data-recovery-codes>${page.recoveryCodes.map((c) => `<li>${esc(c)}</li>`).join('')}</ul>
<p><a href="/merchant/security">${esc(t.security)}</a></p></section>`;
  } else if (status.enabled) {
    body = `<section class="card"><p>${esc(t.twoStepOn(status.recoveryCodesLeft))}</p>
<form method="post" action="/merchant/security/totp/disable" novalidate>${tokenField(s.formToken)}
<p class="muted">${esc(t.disableHint)}</p>
<label for="disable-code">${esc(t.authenticatorCode)}</label>
${codeInput('disable-code', page.error)}
<button type="submit" class="danger">${esc(t.disableApp)}</button></form></section>`;
  } else if (status.pendingSecret && page.setup) {
    body = `<section class="card"><h2>${esc(t.setUpApp)}</h2>
<p>${esc(t.scanQr)}</p>
<figure role="img" aria-label="${esc(t.qrAlt)}" style="max-width:14rem;margin:0">${page.setup.qrSvg}</figure>
<label for="totp-secret">${esc(t.secretKey)}</label>
<input id="totp-secret" readonly dir="ltr" class="mono" value="${esc(status.pendingSecret)}" data-totp-secret>
<label for="totp-uri">${esc(t.setupLink)}</label>
<input id="totp-uri" readonly dir="ltr" class="mono" value="${esc(page.setup.uri)}" data-totp-uri>
<form method="post" action="/merchant/security/totp/confirm" novalidate>${tokenField(s.formToken)}
<label for="confirm-code">${esc(t.authenticatorCode)}</label>
${codeInput('confirm-code', page.error)}
<button type="submit">${esc(t.confirmApp)}</button></form></section>`;
  } else {
    body = `<section class="card"><p>${esc(t.twoStepOff)}</p>
<form method="post" action="/merchant/security/totp">${tokenField(s.formToken)}
<button type="submit">${esc(t.setUpApp)}</button></form></section>`;
  }
  return shellPage(
    { ...s, current: 'security' },
    t.secondFactorTitle,
    `<h1>${esc(t.secondFactorTitle)}</h1>
${page.notice ? `<p class="notice" role="status">${esc(page.notice)}</p>` : ''}
${body}${page.sessions ? sessionsCard(s, page.sessions) : ''}`,
  );
}
