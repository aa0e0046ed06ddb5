import { ApiError, Customer } from './api';
import type { Ctx } from './context';
import { onEnter, storage } from './controls';
import { maskPhone, nationalDigits } from './countries';
import { h, uid } from './dom';

/**
 * Who is buying: guest details (the default), or phone sign-in (code, resend with its cooldown, a short
 * registration for a new number), or the customer a saved token names (spec, Authentication 4).
 */
export class SignIn {
  readonly box: HTMLElement;
  /** The guest inputs, kept across re-renders so a switch to phone and back loses nothing. */
  guest: Record<
    'first' | 'last' | 'email' | 'country' | 'phone',
    HTMLInputElement | HTMLSelectElement
  > | null = null;

  constructor(private readonly c: Ctx) {
    this.box = h('section', { 'aria-label': c.t.yourDetails });
  }

  /** A saved token is checked with auth/validate; when valid the code is skipped. */
  async restore(): Promise<void> {
    const { c } = this;
    const saved = storage()?.getItem(c.tokenKey);
    if (!saved) return;
    try {
      const answer = await c.client.call(
        'POST /api/embed/auth/validate',
        '/api/embed/auth/validate',
        { product_id: c.product().id },
        saved,
      );
      c.state.token = saved;
      c.state.customer = answer.customer;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403))
        storage()?.removeItem(c.tokenKey);
    }
  }

  /** Forgets the sign-in (sign-out, or a token the API no longer accepts). */
  forget(focus: boolean): void {
    const s = this.c.state;
    storage()?.removeItem(this.c.tokenKey);
    s.token = null;
    s.customer = null;
    s.session = null;
    this.render(focus);
  }

  private signedIn(token: string, customer: Customer): void {
    const s = this.c.state;
    s.token = token;
    s.customer = customer;
    s.otp = null;
    storage()?.setItem(this.c.tokenKey, token);
    this.render(true);
  }

  render(focus: boolean): void {
    const { t, state } = this.c;
    const box = this.box;
    box.replaceChildren(h('h3', {}, t.yourDetails));
    if (state.customer) {
      const cu = state.customer;
      const out = h('button', { type: 'button', class: 'link', onclick: () => this.forget(true) }, t.signOut);
      box.append(
        h('p', { class: 'ok', dir: 'auto' }, t.signedInAs(`${cu.firstName} ${cu.lastName}`)),
        h('p', { class: 'muted', dir: 'ltr' }, `+${cu.country_code} ${maskPhone(cu.phone, cu.country_code)}`),
        out,
      );
    } else {
      const name = uid('mode');
      const choice = (value: 'phone' | 'guest', label: string): HTMLElement => {
        const radio = h('input', { type: 'radio', name, value, checked: state.mode === value });
        radio.addEventListener('change', () => {
          state.mode = value;
          this.render(false);
          box.querySelector<HTMLElement>(`input[type=radio][value=${value}]`)?.focus();
        });
        return h('label', { class: 'opt' }, radio, label);
      };
      box.append(
        h(
          'fieldset',
          {},
          h('legend', { class: 'sr' }, t.yourDetails),
          h('div', { class: 'seg' }, [choice('guest', t.guest), choice('phone', t.signInPhone)]),
        ),
      );
      if (state.mode === 'guest') box.append(this.guestFields());
      else if (!state.otp) box.append(this.phoneStart());
      else if (state.otp.stage === 'code') box.append(this.codeStep());
      else box.append(this.registerStep());
    }
    if (focus) {
      const first = box.querySelector<HTMLElement>('[data-autofocus]') ?? this.c.shell.tabbables(box)[0];
      first?.focus();
    }
  }

  private guestFields(): HTMLElement {
    const { t, controls: k } = this.c;
    const first = k.input({ autocomplete: 'given-name', maxlength: 100, required: true });
    const last = k.input({ autocomplete: 'family-name', maxlength: 100, required: true });
    const email = k.input({
      type: 'email',
      autocomplete: 'email',
      maxlength: 255,
      required: true,
      dir: 'ltr',
    });
    const country = k.countrySelect();
    const phone = k.phoneInput(country);
    const now = { first, last, email, country, phone };
    const kept = this.guest;
    if (kept) for (const key of Object.keys(now) as (keyof typeof now)[]) now[key].value = kept[key].value;
    this.guest = now;
    return h(
      'div',
      {},
      h(
        'div',
        { class: 'row' },
        k.control('customer_first_name', t.firstName, first),
        k.control('customer_last_name', t.lastName, last),
      ),
      k.control('customer_email', t.email, email),
      h(
        'div',
        { class: 'row' },
        k.control('customer_country_code', t.country, country),
        k.control('customer_phone', t.phone, phone),
      ),
    );
  }

  private phoneStart(): HTMLElement {
    const { t, controls: k, client, state } = this.c;
    const country = k.countrySelect();
    const phone = k.phoneInput(country);
    const send = h('button', { type: 'button', class: 'btn' }, t.sendCode);
    const start = async (): Promise<void> => {
      this.c.clearErrors();
      const digits = nationalDigits(phone.value);
      if (digits.length < 4) {
        k.error('phone', t.errPhone);
        phone.focus();
        return;
      }
      const answer = await client.call('POST /api/embed/auth/start', '/api/embed/auth/start', {
        product_id: this.c.product().id,
        country_code: country.value,
        phone: digits,
      });
      state.otp = {
        session: answer.session_token,
        masked: answer.masked_phone,
        stage: 'code',
        resendAt: Date.now() + answer.resend_cooldown * 1000,
      };
      this.render(true);
    };
    send.addEventListener('click', () => void this.c.busy(send, start));
    onEnter(phone, () => send.click());
    return h(
      'div',
      {},
      h(
        'div',
        { class: 'row' },
        k.control('country_code', t.country, country),
        k.control('phone', t.phone, phone),
      ),
      send,
    );
  }

  private codeStep(): HTMLElement {
    const { t, controls: k, client, state, shell } = this.c;
    const otp = state.otp!;
    const code = k.input({
      autocomplete: 'one-time-code',
      inputmode: 'numeric',
      pattern: '[0-9]{4}',
      maxlength: 4,
      dir: 'ltr',
      'data-autofocus': true,
    });
    const verify = h('button', { type: 'button', class: 'btn' }, t.verify);
    const resend = h('button', { type: 'button', class: 'btn' }, t.resend);
    const change = h('button', { type: 'button', class: 'link' }, t.changeNumber);
    const run = async (): Promise<void> => {
      this.c.clearErrors();
      const value = code.value.replace(/\D/g, '');
      if (value.length !== 4) {
        k.error('code', t.errCodeFormat);
        code.focus();
        return;
      }
      try {
        const answer = await client.call('POST /api/embed/auth/verify', '/api/embed/auth/verify', {
          session_token: otp.session,
          code: value,
        });
        if (answer.status === 'authenticated') this.signedIn(answer.token, answer.customer);
        else {
          otp.session = answer.session_token;
          otp.stage = 'register';
          this.render(true);
        }
      } catch (err) {
        if (err instanceof ApiError && (err.code === 'INVALID_CODE' || err.code === 'MAX_ATTEMPTS_REACHED')) {
          k.error('code', this.c.explain(err));
          code.select();
        }
        if (err instanceof ApiError && err.code === 'SESSION_EXPIRED') {
          state.otp = null;
          this.render(true);
        }
        throw err;
      }
    };
    verify.addEventListener('click', () => void this.c.busy(verify, run));
    onEnter(code, () => verify.click());
    code.addEventListener('input', () => {
      code.value = code.value.replace(/\D/g, '').slice(0, 4);
      if (code.value.length === 4) verify.click();
    });
    const tick = (): void => {
      const left = Math.ceil((otp.resendAt - Date.now()) / 1000);
      if (!resend.isConnected) return;
      if (left > 0) {
        resend.disabled = true;
        resend.textContent = t.resendIn(left);
        shell.later(tick, 1000);
      } else {
        resend.disabled = false;
        resend.textContent = t.resend;
      }
    };
    resend.addEventListener(
      'click',
      () =>
        void this.c
          .busy(resend, async () => {
            this.c.clearErrors();
            const answer = await client.call('POST /api/embed/auth/resend', '/api/embed/auth/resend', {
              session_token: otp.session,
            });
            otp.resendAt = Date.now() + answer.resend_cooldown * 1000;
            code.value = '';
            code.focus();
          })
          .then(tick),
    );
    change.addEventListener('click', () => {
      state.otp = null;
      this.render(true);
    });
    shell.later(tick, 0);
    return h(
      'div',
      {},
      h('p', {}, t.codeSent(otp.masked)),
      h('div', { class: 'row' }, k.control('code', t.code, code), verify),
      h('div', { class: 'row' }, resend, change),
    );
  }

  private registerStep(): HTMLElement {
    const { t, controls: k, client, state } = this.c;
    const otp = state.otp!;
    const first = k.input({ autocomplete: 'given-name', maxlength: 100, 'data-autofocus': true });
    const last = k.input({ autocomplete: 'family-name', maxlength: 100 });
    const email = k.input({ type: 'email', autocomplete: 'email', maxlength: 255, dir: 'ltr' });
    const go = h('button', { type: 'button', class: 'btn' }, t.createAccount);
    go.addEventListener(
      'click',
      () =>
        void this.c.busy(go, async () => {
          this.c.clearErrors();
          const answer = await client.call('POST /api/embed/auth/complete', '/api/embed/auth/complete', {
            session_token: otp.session,
            firstName: first.value.trim(),
            lastName: last.value.trim(),
            email: email.value.trim(),
          });
          this.signedIn(answer.token, answer.customer);
        }),
    );
    onEnter(email, () => go.click());
    return h(
      'div',
      {},
      h('p', {}, t.newCustomer),
      h(
        'div',
        { class: 'row' },
        k.control('firstName', t.firstName, first),
        k.control('lastName', t.lastName, last),
      ),
      k.control('email', t.email, email),
      go,
    );
  }
}
