import { DASHBOARD_CODE_LENGTH } from '../../../../shared/services/staff/sign-in';
import { esc, PageContext, publicPage } from '../../layout';

/** Sign-in, sign-up and the code page. Inputs carry the standard autocomplete tokens. */

/** Calling code, ISO letters (shown: short enough for a phone), and the country's name (for screen readers). */
const COUNTRIES: ReadonlyArray<[string, string, string, string]> = [
  ['966', 'SA', 'Saudi Arabia', 'السعودية'],
  ['971', 'AE', 'United Arab Emirates', 'الإمارات'],
  ['965', 'KW', 'Kuwait', 'الكويت'],
  ['973', 'BH', 'Bahrain', 'البحرين'],
  ['974', 'QA', 'Qatar', 'قطر'],
  ['968', 'OM', 'Oman', 'عُمان'],
  ['20', 'EG', 'Egypt', 'مصر'],
  ['962', 'JO', 'Jordan', 'الأردن'],
  ['1', 'US', 'United States / Canada', 'أمريكا / كندا'],
  ['44', 'GB', 'United Kingdom', 'المملكة المتحدة'],
];

export interface PhoneValues {
  country_code: string;
  phone: string;
  /** "Keep me signed in" ticked (the dashboard's sign-in form). */
  remember?: boolean;
}

/** Also the buyer's account's phone step (api/account). */
export function phoneFields(p: PageContext, v: PhoneValues, error: string | null): string {
  const selected = v.country_code || '966';
  const known = COUNTRIES.some(([cc]) => cc === selected);
  const options = [
    ...COUNTRIES.map(
      ([cc, iso, en, ar]) =>
        `<option value="${cc}" aria-label="${esc(`${iso} +${cc}, ${p.locale === 'ar' ? ar : en}`)}"${cc === selected ? ' selected' : ''}>${iso} +${cc}</option>`,
    ),
    ...(known ? [] : [`<option value="${esc(selected)}" selected>+${esc(selected)}</option>`]),
  ].join('');
  return `<div class="row">
<div class="cc"><label for="country_code">${esc(p.t.countryCode)}</label>
<select id="country_code" name="country_code" autocomplete="tel-country-code" dir="ltr">${options}</select></div>
<div><label for="phone">${esc(p.t.phone)}</label>
<input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel-national" required maxlength="25" dir="ltr" value="${esc(v.phone)}" aria-describedby="phone-hint${error ? ' phone-error' : ''}"${error ? ' aria-invalid="true"' : ''}></div>
</div>
<span id="phone-hint" class="hint">${esc(p.t.phoneHint)}</span>
${error ? `<p id="phone-error" class="field-error" role="alert">${esc(error)}</p>` : ''}`;
}

export function signInView(
  p: PageContext,
  v: PhoneValues,
  error: string | null = null,
  next?: string,
): string {
  return publicPage(
    p,
    p.t.signInTitle,
    `<div class="card"><h1>${esc(p.t.signInTitle)}</h1>
<p class="muted">${esc(p.t.signInIntro)}</p>
<form method="post" action="/merchant/signin${next ? `?next=${esc(encodeURIComponent(next))}` : ''}" novalidate>
${phoneFields(p, v, error)}
<p><label><input type="checkbox" name="remember" value="1" data-remember${v.remember ? ' checked' : ''}> ${esc(p.locale === 'ar' ? 'أبقني مسجّلاً (30 يوماً على هذا الجهاز)' : 'Keep me signed in (30 days on this device)')}</label></p>
<button type="submit" class="wide">${esc(p.t.sendCode)}</button>
</form></div>
<p>${esc(p.t.noAccountYet)} <a href="/merchant/signup">${esc(p.t.createStore)}</a></p>`,
  );
}

export interface SignUpValues extends PhoneValues {
  store_name: string;
  owner_name: string;
}

export function signUpView(
  p: PageContext,
  v: SignUpValues,
  errors: { store_name?: string; phone?: string } = {},
): string {
  const storeError = errors.store_name
    ? `<p id="store-error" class="field-error" role="alert">${esc(errors.store_name)}</p>`
    : '';
  return publicPage(
    p,
    p.t.signUpTitle,
    `<div class="card"><h1>${esc(p.t.signUpTitle)}</h1>
<p class="muted">${esc(p.t.signUpIntro)}</p>
<form method="post" action="/merchant/signup" novalidate>
<label for="store_name">${esc(p.t.storeName)}</label>
<input id="store_name" name="store_name" required maxlength="200" autocomplete="organization" value="${esc(v.store_name)}"${errors.store_name ? ' aria-invalid="true" aria-describedby="store-error"' : ''}>
${storeError}
<label for="owner_name">${esc(p.t.yourName)} <span class="hint" style="display:inline">${esc(p.t.optional)}</span></label>
<input id="owner_name" name="owner_name" maxlength="200" autocomplete="name" value="${esc(v.owner_name)}">
${phoneFields(p, v, errors.phone ?? null)}
<button type="submit" class="wide">${esc(p.t.sendCode)}</button>
</form></div>
<p>${esc(p.t.haveAccount)} <a href="/merchant/signin">${esc(p.t.signIn)}</a></p>`,
  );
}

export function codeView(
  p: PageContext,
  masked: string,
  back: string,
  message: { error?: string; notice?: string; next?: string } = {},
): string {
  const error = message.error
    ? `<p id="code-error" class="field-error" role="alert">${esc(message.error)}</p>`
    : '';
  const notice = message.notice ? `<p class="notice" role="status">${esc(message.notice)}</p>` : '';
  return publicPage(
    p,
    p.t.codeTitle,
    `<div class="card"><h1>${esc(p.t.codeTitle)}</h1>
${notice}
<p>${esc(p.t.codeSentTo(`\u2066${masked}\u2069`))}</p>
<form method="post" action="/merchant/code${message.next ? `?next=${esc(encodeURIComponent(message.next))}` : ''}" novalidate>
<label for="code">${esc(p.t.code)}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="${DASHBOARD_CODE_LENGTH}" required dir="ltr" autofocus${message.error ? ' aria-invalid="true" aria-describedby="code-error"' : ''}>
${error}
<button type="submit" class="wide">${esc(p.t.verify)}</button>
</form>
<form method="post" action="/merchant/code/resend"><button type="submit" class="secondary wide">${esc(p.t.resend)}</button></form>
</div>
<p><a href="${esc(back)}">${esc(p.t.otherNumber)}</a></p>`,
  );
}

/** The second step for a person with an authenticator app: its code, or one of the recovery codes. */
export function secondFactorView(p: PageContext, message: { error?: string; next?: string } = {}): string {
  const error = message.error
    ? `<p id="factor-error" class="field-error" role="alert">${esc(message.error)}</p>`
    : '';
  const action = `/merchant/second-factor${message.next ? `?next=${esc(encodeURIComponent(message.next))}` : ''}`;
  const invalid = message.error ? ' aria-invalid="true" aria-describedby="factor-error"' : '';
  return publicPage(
    p,
    p.t.secondFactorTitle,
    `<div class="card"><h1>${esc(p.t.secondFactorTitle)}</h1>
<p>${esc(p.t.secondFactorIntro)}</p>
<form method="post" action="${action}" novalidate>
<label for="code">${esc(p.t.authenticatorCode)}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]*" maxlength="6" dir="ltr" autofocus${invalid}>
${error}
<button type="submit" class="wide">${esc(p.t.verify)}</button>
</form>
<details><summary>${esc(p.t.useRecoveryCode)}</summary>
<form method="post" action="${action}" novalidate>
<label for="recovery_code">${esc(p.t.recoveryCode)}</label>
<input id="recovery_code" name="recovery_code" autocomplete="off" maxlength="20" dir="ltr">
<button type="submit" class="secondary wide">${esc(p.t.verify)}</button>
</form></details>
</div>
<p><a href="/merchant/signin">${esc(p.t.otherNumber)}</a></p>`,
  );
}
