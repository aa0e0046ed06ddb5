import {
  ApiError,
  CheckoutSession,
  Coupon,
  Customer,
  EmbedClient,
  Initiation,
  MethodId,
  Product,
} from './api';
import { COUNTRIES, maskPhone, nationalDigits } from './countries';
import { append, h, uid } from './dom';
import { Lang, STRINGS, Strings } from './i18n';
import { CSS } from './styles';

/**
 * One purchase dialog: a modal in an open shadow root on the merchant's page, running the whole purchase
 * against the Embed API (product, sign-in or guest details, options, coupon, payment, status, order id).
 */

export type Theme = 'auto' | 'light' | 'dark';

export interface DialogOptions {
  button: HTMLElement;
  client: EmbedClient;
  productId: string;
  theme: Theme;
  lang: Lang;
  onClosed: () => void;
}

type Field = Product['fields'][number];
type Method = Product['payment_methods'][number];
type Paid = CheckoutSession & { type: 'payment_required' };

/** Spec, Embed API payment status: clients poll every 2 to 3 seconds. */
const POLL_MS = 2500;
const MiB = 1024 * 1024;
const FOCUSABLE =
  'a[href],button:not([disabled]),input:not([disabled]),select:not([disabled]),textarea:not([disabled])';

const toMinor = (value: string | number): number => Math.round(Number(value) * 100);

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled (privacy settings, sandboxed frame)
  }
}

interface Slot {
  input: HTMLElement;
  error: HTMLElement;
}

export class CheckoutDialog {
  private readonly t: Strings;
  private readonly host: HTMLElement;
  private readonly root: ShadowRoot;
  private readonly wrap: HTMLElement;
  private readonly dlg: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly body: HTMLElement;
  private readonly alert: HTMLElement;
  private readonly slots = new Map<string, Slot>();
  private readonly timers = new Set<number>();
  private readonly restoreOverflow: string;
  private product!: Product;
  private customer: Customer | null = null;
  private token: string | null = null;
  // Guest first: the fewest steps to buy; returning customers are signed in by their saved token anyway.
  private mode: 'phone' | 'guest' = 'guest';
  private otp: { session: string; masked: string; stage: 'code' | 'register'; resendAt: number } | null =
    null;
  private coupon: Coupon | null = null;
  private session: { fingerprint: string; data: CheckoutSession } | null = null;
  private paying = false;
  private closed = false;
  private popup: Window | null = null;
  // elements of the purchase form, built once per product
  private form!: HTMLFormElement;
  private buyerBox!: HTMLElement;
  private qty!: HTMLInputElement;
  private note!: HTMLTextAreaElement;
  private couponInput!: HTMLInputElement;
  private couponBox!: HTMLElement;
  private methodBox!: HTMLElement;
  private summary!: HTMLElement;
  private payBtn!: HTMLButtonElement;
  private planInputs: HTMLInputElement[] = [];
  private fieldInputs: { field: Field; input: HTMLInputElement | HTMLSelectElement }[] = [];

  constructor(private readonly opts: DialogOptions) {
    this.t = STRINGS[opts.lang];
    this.host = h('div', { 'data-matjar-widget': '' });
    this.root = this.host.attachShadow({ mode: 'open' });
    const sheet = adopt(this.root);
    if (!sheet) this.root.append(h('style', {}, CSS));
    const titleId = uid('title');
    this.heading = h('h2', { id: titleId }, this.t.loading);
    this.alert = h('div', { class: 'alert', role: 'alert', 'aria-live': 'assertive' });
    this.body = h('div', { class: 'body' });
    this.dlg = h(
      'div',
      { class: 'dlg', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': titleId, tabindex: '-1' },
      h(
        'header',
        {},
        this.heading,
        h(
          'button',
          { type: 'button', class: 'x', 'aria-label': this.t.close, onclick: () => this.close() },
          '×',
        ),
      ),
      h('div', { class: 'body' }, this.alert),
      this.body,
    );
    this.wrap = h(
      'div',
      { class: 'mj', 'data-theme': opts.theme, dir: opts.lang === 'ar' ? 'rtl' : 'ltr', lang: opts.lang },
      this.dlg,
    );
    this.wrap.addEventListener('mousedown', (e) => {
      if (e.target === this.wrap && !this.paying) this.close();
    });
    this.root.append(this.wrap);
    this.root.addEventListener('keydown', (e) => this.onKey(e as KeyboardEvent));
    document.addEventListener('focusin', this.keepFocus, true);
    this.restoreOverflow = document.documentElement.style.overflow;
    document.documentElement.style.overflow = 'hidden';
    document.body.append(this.host);
    this.dlg.focus();
    this.emit('matjar:open', { product_id: opts.productId });
    void this.load();
  }

  // ---------------------------------------------------------------- lifecycle, focus, events

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of this.timers) clearTimeout(id);
    this.timers.clear();
    document.removeEventListener('focusin', this.keepFocus, true);
    document.documentElement.style.overflow = this.restoreOverflow;
    this.host.remove();
    this.opts.button.focus();
    this.emit('matjar:close', {});
    this.opts.onClosed();
  }

  private emit(name: string, detail: Record<string, unknown>): void {
    this.opts.button.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, detail }));
  }

  private later(fn: () => void, ms: number): void {
    const id = window.setTimeout(() => {
      this.timers.delete(id);
      if (!this.closed) fn();
    }, ms);
    this.timers.add(id);
  }

  /** Focus that leaves the dialog (a click on the page behind, a screen reader jump) is brought back. */
  private readonly keepFocus = (e: FocusEvent): void => {
    if (e.target !== this.host && !this.closed) this.focusFirst();
  };

  private tabbables(): HTMLElement[] {
    return [...this.dlg.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => {
      if (el.getClientRects().length === 0) return false;
      // Tab reaches one radio per group: the checked one, or the first when none is.
      if (el instanceof HTMLInputElement && el.type === 'radio') {
        const group = [
          ...this.dlg.querySelectorAll<HTMLInputElement>(`input[type=radio][name="${el.name}"]`),
        ];
        const checked = group.find((r) => r.checked);
        return checked ? checked === el : group[0] === el;
      }
      return true;
    });
  }

  private focusFirst(): void {
    const items = this.tabbables();
    const first =
      this.body.querySelector<HTMLElement>('[data-autofocus]') ??
      items.find((el) => this.body.contains(el)) ??
      items[0] ??
      this.dlg;
    first.focus();
  }

  private onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
      return;
    }
    if (e.key !== 'Tab') return;
    const items = this.tabbables();
    if (items.length === 0) return;
    const active = this.root.activeElement;
    const at = items.indexOf(active as HTMLElement);
    if (e.shiftKey && (at <= 0 || active === this.dlg)) {
      e.preventDefault();
      items[items.length - 1].focus();
    } else if (!e.shiftKey && (at === items.length - 1 || at === -1)) {
      e.preventDefault();
      items[0].focus();
    }
  }

  private show(view: HTMLElement, focus = true): void {
    this.body.replaceChildren(view);
    if (focus) this.focusFirst();
  }

  // ---------------------------------------------------------------- errors in the buyer's words

  private say(message: string): void {
    // Cleared first so the same message twice is announced twice.
    this.alert.textContent = '';
    if (message) this.later(() => (this.alert.textContent = message), 30);
  }

  private clearErrors(): void {
    this.alert.textContent = '';
    for (const slot of this.slots.values()) {
      slot.error.textContent = '';
      slot.input.removeAttribute('aria-invalid');
    }
  }

  private fieldError(key: string, message: string): boolean {
    const slot = this.slots.get(key);
    if (!slot || !slot.input.isConnected) return false;
    slot.error.textContent = message;
    slot.input.setAttribute('aria-invalid', 'true');
    return true;
  }

  /** Words for an error answer; per-field messages go next to their inputs. */
  private explain(err: unknown): string {
    const t = this.t;
    if (!(err instanceof ApiError)) return t.errFailed;
    const wait = err.body.retry_after ?? 60;
    const msg = err.message;
    switch (err.code) {
      case 'RATE_LIMIT_EXCEEDED':
        return t.errRate(wait);
      case 'COOLDOWN_ACTIVE':
        return t.errCooldown(wait);
      case 'INVALID_CODE':
        return t.errCode(err.body.remaining_attempts ?? 0);
      case 'MAX_ATTEMPTS_REACHED':
        return t.errMaxAttempts;
      case 'SESSION_EXPIRED':
        return t.errExpired;
      case 'PHONE_BLOCKED':
        return t.errBlocked;
    }
    if (err.status === 0) return t.errNetwork;
    if (err.status === 429) return t.errRate(wait);
    if (err.status >= 500) return t.errServer;
    if (err.status === 401) return /embed key/i.test(msg) ? t.errKey : t.errSession;
    if (err.status === 403) return /origin/i.test(msg) ? t.errOrigin : t.errKey;
    if (err.status === 400 && this.product) {
      const coupon = this.couponWords(msg);
      if (coupon) return coupon;
    }
    if (/^Product not found/i.test(msg)) return t.errProduct;
    if (/checkout/i.test(msg) && err.status === 404) return t.errCheckoutGone;
    if (/stock/i.test(msg)) return t.errStock;
    if (/no payment method/i.test(msg)) return t.errNoMethod;
    if (/already/i.test(msg) && /order/i.test(msg)) return t.errAlreadyPaid;
    if (/payment method/i.test(msg)) return t.errMethod;
    if (/session/i.test(msg)) return t.errSession;
    if (err.status === 422) {
      let placed = false;
      for (const [key, messages] of Object.entries(err.fields)) {
        placed = this.fieldError(key, this.fieldMessage(key, messages[0] ?? '')) || placed;
      }
      if (err.fields.product_id) return t.errProduct;
      return placed ? t.errFix : Object.values(err.fields)[0]?.[0] || t.errFailed;
    }
    return this.opts.lang === 'en' && msg ? msg : t.errFailed;
  }

  private fieldMessage(key: string, server: string): string {
    const t = this.t;
    if (/required|is not allowed to be empty/i.test(server)) return t.errRequired;
    if (/email/i.test(key)) return t.errEmail;
    if (/phone|country/i.test(key)) return t.errPhone;
    if (key === 'code') return t.errCodeFormat;
    return this.opts.lang === 'en' && server ? server : t.errInvalid;
  }

  private fail(err: unknown): void {
    this.say(this.explain(err));
    const invalid = this.dlg.querySelector<HTMLElement>('[aria-invalid=true]');
    invalid?.focus();
  }

  /** Runs an action with its button busy; errors are explained. */
  private async busy(button: HTMLButtonElement | null, action: () => Promise<void>): Promise<void> {
    if (button?.disabled) return;
    const label = button?.textContent;
    if (button) {
      button.disabled = true;
      button.setAttribute('aria-busy', 'true');
      button.textContent = this.t.working;
    }
    try {
      await action();
    } catch (err) {
      if (!this.closed) this.fail(err);
    } finally {
      if (button) {
        button.disabled = false;
        button.removeAttribute('aria-busy');
        if (button.textContent === this.t.working) button.textContent = label ?? '';
      }
    }
  }

  // ---------------------------------------------------------------- loading

  private tokenKey(): string {
    return `matjar:token:${this.opts.client.key}`;
  }

  private async load(): Promise<void> {
    this.alert.textContent = '';
    this.show(
      h('div', { class: 'center' }, h('div', { class: 'spin', 'aria-hidden': 'true' }), this.t.loading),
      false,
    );
    try {
      this.product = await this.opts.client.call(
        'GET /api/embed/product/{productId}',
        `/api/embed/product/${encodeURIComponent(this.opts.productId)}`,
      );
      await this.restoreToken();
    } catch (err) {
      if (this.closed) return;
      this.heading.textContent = this.t.errFailed;
      const retry = h(
        'button',
        { type: 'button', class: 'btn', onclick: () => void this.load() },
        this.t.retry,
      );
      this.say(this.explain(err));
      this.show(h('div', { class: 'center' }, retry));
      return;
    }
    if (this.closed) return;
    this.heading.textContent = this.product.name;
    this.buildForm();
    this.show(this.form);
  }

  /** Spec, Authentication 4: a saved token is checked with auth/validate; when valid the OTP is skipped. */
  private async restoreToken(): Promise<void> {
    const saved = storage()?.getItem(this.tokenKey());
    if (!saved) return;
    try {
      const answer = await this.opts.client.call(
        'POST /api/embed/auth/validate',
        '/api/embed/auth/validate',
        { product_id: this.product.id },
        saved,
      );
      this.token = saved;
      this.customer = answer.customer;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        storage()?.removeItem(this.tokenKey());
      }
    }
  }

  private signedIn(token: string, customer: Customer): void {
    this.token = token;
    this.customer = customer;
    this.otp = null;
    storage()?.setItem(this.tokenKey(), token);
    this.renderBuyer(true);
  }

  // ---------------------------------------------------------------- form building blocks

  /** A labelled control with its error line; `key` is the API's name for it in 422 answers. */
  private control(
    key: string,
    label: string,
    input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
    hint?: string,
    display: HTMLElement = input,
  ): HTMLElement {
    const errorId = uid('err');
    const error = h('div', { class: 'ferr', id: errorId });
    const hintEl = hint ? h('div', { class: 'muted', id: uid('hint') }, hint) : null;
    input.id ||= uid('in');
    input.setAttribute('aria-describedby', hintEl ? `${hintEl.id} ${errorId}` : errorId);
    this.slots.set(key, { input, error });
    return h('div', { class: 'f' }, h('label', { for: input.id }, label), display, hintEl, error);
  }

  private input(attrs: Record<string, string | number | boolean | undefined>): HTMLInputElement {
    return h('input', { type: 'text', ...attrs });
  }

  private countrySelect(autocomplete: string): HTMLSelectElement {
    const select = h('select', { autocomplete });
    for (const [, dial, nameEn, nameAr] of COUNTRIES) {
      select.append(h('option', { value: dial }, `${this.opts.lang === 'ar' ? nameAr : nameEn} (+${dial})`));
    }
    return select;
  }

  /** A phone input that groups the digits as they are typed. */
  private phoneInput(country: HTMLSelectElement): HTMLInputElement {
    const input = this.input({ type: 'tel', autocomplete: 'tel-national', inputmode: 'tel', dir: 'ltr' });
    const reformat = (): void => {
      input.value = maskPhone(input.value, country.value);
    };
    input.addEventListener('input', reformat);
    country.addEventListener('change', reformat);
    return input;
  }

  private onEnter(el: HTMLElement, action: () => void): void {
    el.addEventListener('keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Enter') {
        e.preventDefault();
        action();
      }
    });
  }

  private money(minor: number): string {
    const currency = this.product.currency;
    try {
      return new Intl.NumberFormat(this.opts.lang === 'ar' ? 'ar-SA' : 'en', {
        style: 'currency',
        currency,
      }).format(minor / 100);
    } catch {
      return `${(minor / 100).toFixed(2)} ${currency}`;
    }
  }

  private methodName(m: { name_en: string; name_ar: string }): string {
    return this.opts.lang === 'ar' ? m.name_ar : m.name_en;
  }

  // ---------------------------------------------------------------- the purchase form

  private buildForm(): void {
    const p = this.product;
    const t = this.t;
    this.form = h('form', { novalidate: true });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.busy(this.payBtn, () => this.pay());
    });
    this.form.addEventListener('input', () => this.changed());
    this.form.addEventListener('change', () => this.changed());

    const stock = p.stock.is_in_stock
      ? p.stock.quantity !== null && p.stock.quantity <= 10
        ? t.left(p.stock.quantity)
        : t.inStock
      : t.outOfStock;
    const price = h(
      'div',
      { class: 'price' },
      this.money(toMinor(p.price.actual)),
      p.price.original > p.price.actual ? h('s', {}, this.money(toMinor(p.price.original))) : null,
    );
    const intro = h(
      'div',
      {},
      price,
      h('p', { class: p.stock.is_in_stock ? 'muted' : 'ferr' }, stock),
      p.description ? h('p', { class: 'muted' }, p.description) : null,
    );

    this.buyerBox = h('section', { 'aria-label': t.yourDetails });
    this.renderBuyer(false);

    const options = h('section', { 'aria-label': t.options });
    if (p.subscription_plans.length > 0) {
      const name = uid('plan');
      this.planInputs = p.subscription_plans.map((plan, i) =>
        h('input', { type: 'radio', name, value: String(plan.id), checked: i === 0 }),
      );
      options.append(
        h(
          'fieldset',
          {},
          h('legend', {}, t.plan),
          p.subscription_plans.map((plan, i) =>
            h('label', { class: 'opt' }, this.planInputs[i], `${plan.name} · ${plan.price_formatted}`),
          ),
        ),
      );
      // The buyer's consent to renewals, before they pay.
      if (p.subscription_plans.some((plan) => plan.duration !== 'lifetime')) {
        options.append(h('p', { class: 'muted' }, t.renewsNote));
      }
    }
    this.fieldInputs = [];
    for (const field of p.fields) options.append(this.customField(field));

    // Never offer more than the store sells in one order (max_per_order) or has in stock.
    const max = Math.min(p.max_per_order ?? 10, p.stock.quantity ?? Number.MAX_SAFE_INTEGER);
    this.qty = this.input({ type: 'number', min: 1, max, step: 1, value: 1, inputmode: 'numeric' });
    const step = (delta: number) => () => {
      const next = Math.min(max, Math.max(1, (parseInt(this.qty.value, 10) || 1) + delta));
      this.qty.value = String(next);
      this.changed();
    };
    const qtyWrap = this.control(
      'quantity',
      t.quantity,
      this.qty,
      undefined,
      h(
        'div',
        { class: 'qty' },
        h('button', { type: 'button', class: 'btn', 'aria-label': t.decrease, onclick: step(-1) }, '−'),
        this.qty,
        h('button', { type: 'button', class: 'btn', 'aria-label': t.increase, onclick: step(1) }, '+'),
      ),
    );
    options.append(qtyWrap);

    this.couponInput = this.input({ autocomplete: 'off', autocapitalize: 'characters', maxlength: 100 });
    const applyBtn = h('button', { type: 'button', class: 'btn' }, t.apply);
    applyBtn.addEventListener('click', () => void this.busy(applyBtn, () => this.applyCoupon()));
    this.onEnter(this.couponInput, () => applyBtn.click());
    this.couponBox = h('div', { 'aria-live': 'polite' });
    const couponField = this.control('coupon_code', t.coupon, this.couponInput);
    options.append(h('div', { class: 'row' }, couponField, applyBtn), this.couponBox);

    this.note = h('textarea', { maxlength: 500, rows: 2 });
    options.append(this.control('customer_note', `${t.note} ${t.optional}`, this.note));

    this.methodBox = h('section', {});
    this.summary = h('dl', { class: 'sum' });
    this.payBtn = h('button', { type: 'submit', class: 'btn primary', disabled: !p.stock.is_in_stock });
    this.form.append(
      intro,
      this.buyerBox,
      options,
      this.methodBox,
      h('section', {}, this.summary, this.payBtn),
    );
    this.changed();
  }

  private customField(field: Field): HTMLElement {
    const t = this.t;
    const label = field.required ? field.label : `${field.label} ${t.optional}`;
    const key = field.upload ? `field_files.${field.index}` : `fields.${field.index}`;
    let input: HTMLInputElement | HTMLSelectElement;
    let hint: string | undefined;
    switch (field.type) {
      case 'select':
        input = h(
          'select',
          { required: field.required },
          h('option', { value: '' }, t.choose),
          field.options.map((o) =>
            h(
              'option',
              { value: String(o.index) },
              toMinor(o.price) > 0 ? `${o.label} (+${this.money(toMinor(o.price))})` : o.label,
            ),
          ),
        );
        break;
      case 'image':
      case 'file': {
        const accept = field.upload?.accept ?? [];
        const mb = Math.round((field.upload?.max_size_bytes ?? 0) / MiB);
        hint = t.fileHint(accept.join(', '), mb);
        input = this.input({
          type: 'file',
          accept: accept.map((a) => `.${a}`).join(','),
          required: field.required,
        });
        input.addEventListener('change', () => this.checkFile(field, input as HTMLInputElement));
        break;
      }
      case 'number':
        input = this.input({ type: 'number', step: 'any', inputmode: 'decimal', required: field.required });
        break;
      case 'date':
        input = this.input({ type: 'date', required: field.required });
        break;
      case 'datetime':
        input = this.input({ type: 'datetime-local', required: field.required });
        break;
      case 'color':
        input = this.input({ type: 'color' });
        // A colour input always has a value; only one the buyer picked is sent.
        input.addEventListener('input', () => (input.dataset.touched = '1'));
        break;
      default:
        input = this.input({ required: field.required, maxlength: 1000 });
    }
    this.fieldInputs.push({ field, input });
    return this.control(key, label, input, hint);
  }

  /** Spec, Limits: images JPG, PNG, GIF up to 10 MB; files PDF, DOC, DOCX, TXT, ZIP up to 20 MB. */
  private checkFile(field: Field, input: HTMLInputElement): boolean {
    const key = `field_files.${field.index}`;
    const slot = this.slots.get(key);
    if (slot) {
      slot.error.textContent = '';
      input.removeAttribute('aria-invalid');
    }
    const file = input.files?.[0];
    if (!file) return true;
    const accept = field.upload?.accept ?? [];
    const ext = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
    if (!accept.includes(ext)) return !this.fieldError(key, this.t.errFileType(accept.join(', ')));
    const max = field.upload?.max_size_bytes ?? Infinity;
    if (file.size > max) return !this.fieldError(key, this.t.errFileSize(Math.round(max / MiB)));
    return true;
  }

  // ---------------------------------------------------------------- buyer: phone sign-in or guest

  private renderBuyer(focus: boolean): void {
    const t = this.t;
    const box = this.buyerBox;
    box.replaceChildren(h('h3', {}, t.yourDetails));
    if (this.customer) {
      const c = this.customer;
      const out = h('button', { type: 'button', class: 'link' }, t.signOut);
      out.addEventListener('click', () => {
        storage()?.removeItem(this.tokenKey());
        this.token = null;
        this.customer = null;
        this.session = null;
        this.renderBuyer(true);
      });
      box.append(
        h('p', { class: 'ok' }, t.signedInAs(`${c.firstName} ${c.lastName}`)),
        h('p', { class: 'muted', dir: 'ltr' }, `+${c.country_code} ${maskPhone(c.phone, c.country_code)}`),
        out,
      );
    } else {
      const name = uid('mode');
      const choice = (value: 'phone' | 'guest', label: string): HTMLElement => {
        const radio = h('input', { type: 'radio', name, value, checked: this.mode === value });
        radio.addEventListener('change', () => {
          this.mode = value;
          this.renderBuyer(false);
          this.buyerBox.querySelector<HTMLElement>(`input[type=radio][value=${value}]`)?.focus();
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
      if (this.mode === 'guest') box.append(this.guestFields());
      else if (!this.otp) box.append(this.phoneStart());
      else if (this.otp.stage === 'code') box.append(this.codeStep());
      else box.append(this.registerStep());
    }
    if (focus) {
      const first =
        box.querySelector<HTMLElement>('[data-autofocus]') ?? box.querySelector<HTMLElement>(FOCUSABLE);
      first?.focus();
    }
  }

  private guestInputs: Record<string, HTMLInputElement | HTMLSelectElement> = {};

  private guestFields(): HTMLElement {
    const t = this.t;
    const kept = this.guestInputs;
    const first = this.input({ autocomplete: 'given-name', maxlength: 100, required: true });
    const last = this.input({ autocomplete: 'family-name', maxlength: 100, required: true });
    const email = this.input({
      type: 'email',
      autocomplete: 'email',
      maxlength: 255,
      required: true,
      dir: 'ltr',
    });
    const country = this.countrySelect('tel-country-code');
    const phone = this.phoneInput(country);
    for (const [k, el] of Object.entries({ first, last, email, country, phone })) {
      if (kept[k]) el.value = kept[k].value;
    }
    this.guestInputs = { first, last, email, country, phone };
    return h(
      'div',
      {},
      h(
        'div',
        { class: 'row' },
        this.control('customer_first_name', t.firstName, first),
        this.control('customer_last_name', t.lastName, last),
      ),
      this.control('customer_email', t.email, email),
      h(
        'div',
        { class: 'row' },
        this.control('customer_country_code', t.country, country),
        this.control('customer_phone', t.phone, phone),
      ),
    );
  }

  private phoneStart(): HTMLElement {
    const t = this.t;
    const country = this.countrySelect('tel-country-code');
    const phone = this.phoneInput(country);
    const send = h('button', { type: 'button', class: 'btn' }, t.sendCode);
    const start = async (): Promise<void> => {
      this.clearErrors();
      const digits = nationalDigits(phone.value);
      if (digits.length < 4) {
        this.fieldError('phone', t.errPhone);
        phone.focus();
        return;
      }
      const answer = await this.opts.client.call('POST /api/embed/auth/start', '/api/embed/auth/start', {
        product_id: this.product.id,
        country_code: country.value,
        phone: digits,
      });
      this.otp = {
        session: answer.session_token,
        masked: answer.masked_phone,
        stage: 'code',
        resendAt: Date.now() + answer.resend_cooldown * 1000,
      };
      this.renderBuyer(true);
    };
    send.addEventListener('click', () => void this.busy(send, start));
    this.onEnter(phone, () => send.click());
    return h(
      'div',
      {},
      h(
        'div',
        { class: 'row' },
        this.control('country_code', t.country, country),
        this.control('phone', t.phone, phone),
      ),
      send,
    );
  }

  private codeStep(): HTMLElement {
    const t = this.t;
    const otp = this.otp!;
    const code = this.input({
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
      this.clearErrors();
      const value = code.value.replace(/\D/g, '');
      if (value.length !== 4) {
        this.fieldError('code', t.errCodeFormat);
        code.focus();
        return;
      }
      try {
        const answer = await this.opts.client.call('POST /api/embed/auth/verify', '/api/embed/auth/verify', {
          session_token: otp.session,
          code: value,
        });
        if (answer.status === 'authenticated') this.signedIn(answer.token, answer.customer);
        else {
          otp.session = answer.session_token;
          otp.stage = 'register';
          this.renderBuyer(true);
        }
      } catch (err) {
        if (err instanceof ApiError && (err.code === 'INVALID_CODE' || err.code === 'MAX_ATTEMPTS_REACHED')) {
          this.fieldError('code', this.explain(err));
          code.select();
        }
        if (err instanceof ApiError && err.code === 'SESSION_EXPIRED') {
          this.otp = null;
          this.renderBuyer(true);
        }
        throw err;
      }
    };
    verify.addEventListener('click', () => void this.busy(verify, run));
    this.onEnter(code, () => verify.click());
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
        this.later(tick, 1000);
      } else {
        resend.disabled = false;
        resend.textContent = t.resend;
      }
    };
    resend.addEventListener(
      'click',
      () =>
        void this.busy(resend, async () => {
          this.clearErrors();
          const answer = await this.opts.client.call(
            'POST /api/embed/auth/resend',
            '/api/embed/auth/resend',
            {
              session_token: otp.session,
            },
          );
          otp.resendAt = Date.now() + answer.resend_cooldown * 1000;
          code.value = '';
          code.focus();
        }).then(tick),
    );
    change.addEventListener('click', () => {
      this.otp = null;
      this.renderBuyer(true);
    });
    this.later(tick, 0);
    return h(
      'div',
      {},
      h('p', {}, t.codeSent(otp.masked)),
      h('div', { class: 'row' }, this.control('code', t.code, code), verify),
      h('div', { class: 'row' }, resend, change),
    );
  }

  private registerStep(): HTMLElement {
    const t = this.t;
    const otp = this.otp!;
    const first = this.input({ autocomplete: 'given-name', maxlength: 100, 'data-autofocus': true });
    const last = this.input({ autocomplete: 'family-name', maxlength: 100 });
    const email = this.input({ type: 'email', autocomplete: 'email', maxlength: 255, dir: 'ltr' });
    const go = h('button', { type: 'button', class: 'btn' }, t.createAccount);
    go.addEventListener(
      'click',
      () =>
        void this.busy(go, async () => {
          this.clearErrors();
          const answer = await this.opts.client.call(
            'POST /api/embed/auth/complete',
            '/api/embed/auth/complete',
            {
              session_token: otp.session,
              firstName: first.value.trim(),
              lastName: last.value.trim(),
              email: email.value.trim(),
            },
          );
          this.signedIn(answer.token, answer.customer);
        }),
    );
    this.onEnter(email, () => go.click());
    return h(
      'div',
      {},
      h('p', {}, t.newCustomer),
      h(
        'div',
        { class: 'row' },
        this.control('firstName', t.firstName, first),
        this.control('lastName', t.lastName, last),
      ),
      this.control('email', t.email, email),
      go,
    );
  }

  // ---------------------------------------------------------------- amounts, coupon, methods

  private quantity(): number {
    const n = parseInt(this.qty.value, 10);
    return Number.isFinite(n) && n >= 1 ? n : 1;
  }

  /** The total as the widget can foresee it (the checkout answer has the final word, tax included). */
  private estimate(): { subtotal: number; discount: number; total: number } {
    const p = this.product;
    const plan = p.subscription_plans.find((pl) =>
      this.planInputs.some((r) => r.checked && r.value === String(pl.id)),
    );
    let unit = plan ? toMinor(plan.price) : toMinor(p.price.actual);
    for (const { field, input } of this.fieldInputs) {
      if (field.type === 'select' && input.value !== '') {
        unit += toMinor(field.options[Number(input.value)]?.price ?? 0);
      }
    }
    const subtotal = unit * this.quantity();
    let discount = 0;
    if (this.coupon) {
      discount =
        this.coupon.type === 'percentage'
          ? Math.round((subtotal * this.coupon.amount) / 100)
          : toMinor(this.coupon.amount);
    }
    discount = Math.min(discount, subtotal);
    return { subtotal, discount, total: subtotal - discount };
  }

  private methods(total: number): Method[] {
    const allowed = this.coupon?.payment_restrictions ?? [];
    return this.product.payment_methods.filter(
      (m) =>
        (allowed.length === 0 || allowed.includes(m.id)) &&
        (m.min_amount == null || total >= toMinor(m.min_amount)) &&
        (m.max_amount == null || total <= toMinor(m.max_amount)),
    );
  }

  private selectedMethod(): MethodId | null {
    const checked = this.methodBox.querySelector<HTMLInputElement>('input[type=radio]:checked');
    return checked ? (checked.value as MethodId) : null;
  }

  /** Recomputes the summary and the methods offered after any change to the form. */
  private changed(): void {
    if (this.paying) return;
    const t = this.t;
    const { subtotal, discount, total } = this.estimate();
    const rows: HTMLElement[] = [h('dt', {}, t.subtotal), h('dd', {}, this.money(subtotal))];
    if (discount > 0)
      rows.push(h('dt', {}, t.discount), h('dd', { class: 'ok' }, `−${this.money(discount)}`));
    rows.push(h('dt', { class: 't' }, t.total), h('dd', { class: 't' }, this.money(total)));
    this.summary.replaceChildren(...rows);
    if (this.payBtn.getAttribute('aria-busy') !== 'true') {
      this.payBtn.textContent = total === 0 ? t.getFree : t.pay(this.money(total));
    }

    const offered = total === 0 ? [] : this.methods(total);
    const ids = offered.map((m) => m.id).join();
    if (this.methodBox.dataset.ids !== ids) {
      const previous = this.selectedMethod();
      this.methodBox.dataset.ids = ids;
      const name = uid('method');
      const error = h('div', { class: 'ferr', id: uid('err') });
      const radios = offered.map((m, i) =>
        h('input', {
          type: 'radio',
          name,
          value: m.id,
          checked: previous ? previous === m.id : i === 0,
          'aria-describedby': error.id,
        }),
      );
      this.methodBox.replaceChildren();
      if (offered.length > 0) {
        this.methodBox.append(
          h(
            'fieldset',
            {},
            h('legend', {}, t.paymentMethod),
            offered.map((m, i) => h('label', { class: 'opt' }, radios[i], this.methodName(m))),
            error,
          ),
        );
        this.slots.set('payment_method', { input: radios[0], error });
      }
    }
    if (this.coupon) this.renderCoupon();
  }

  private renderCoupon(): void {
    const c = this.coupon;
    const t = this.t;
    if (!c) {
      this.couponBox.replaceChildren();
      return;
    }
    const remove = h('button', { type: 'button', class: 'link' }, t.remove);
    remove.addEventListener('click', () => {
      this.coupon = null;
      this.couponInput.value = '';
      this.renderCoupon();
      this.changed();
      this.couponInput.focus();
    });
    const names = this.product.payment_methods
      .filter((m) => c.payment_restrictions.includes(m.id))
      .map((m) => this.methodName(m));
    this.couponBox.replaceChildren();
    append(this.couponBox, [
      h('p', { class: 'ok' }, t.couponApplied(c.code, this.money(this.estimate().discount)), ' ', remove),
      c.payment_restrictions.length > 0
        ? h(
            'p',
            { class: 'muted' },
            `${t.errCouponMethods} ${names.join(this.opts.lang === 'ar' ? '، ' : ', ')}`,
          )
        : null,
    ]);
  }

  /** A coupon refusal (apply-coupon, or checkout when the quantity changed since) in the buyer's words. */
  private couponWords(m: string): string | null {
    const t = this.t;
    const min = /minimum order value is\s*(.+)$/i.exec(m);
    if (min) return t.errCouponMin(isNaN(Number(min[1])) ? min[1] : this.money(toMinor(min[1])));
    if (!/coupon/i.test(m)) return null;
    if (/not active|expired/i.test(m)) return t.errCouponInactive;
    if (/maximum uses/i.test(m)) return t.errCouponUsed;
    if (/product/i.test(m)) return t.errCouponProduct;
    return t.errCoupon;
  }

  private async applyCoupon(): Promise<void> {
    this.clearErrors();
    const code = this.couponInput.value.trim();
    if (!code) {
      this.coupon = null;
      this.renderCoupon();
      this.changed();
      return;
    }
    try {
      this.coupon = await this.opts.client.call('POST /api/embed/apply-coupon', '/api/embed/apply-coupon', {
        code,
        product_id: this.product.id,
        quantity: this.quantity(),
      });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
      const words = this.couponWords(err.message) ?? this.t.errCoupon;
      this.coupon = null;
      this.renderCoupon();
      this.changed();
      this.fieldError('coupon_code', words);
      this.say(words);
      this.couponInput.focus();
      return;
    }
    this.session = null;
    this.changed();
    this.renderCoupon();
  }

  // ---------------------------------------------------------------- checkout and payment

  /** The checkout request from the form, or null after showing what is missing. */
  private request(): Record<string, unknown> | FormData | null {
    const t = this.t;
    let ok = true;
    const need = (key: string, test: boolean, message: string): void => {
      if (!test && this.fieldError(key, message)) ok = false;
    };
    const body: Record<string, unknown> = { product_id: this.product.id, quantity: this.quantity() };
    if (!this.customer) {
      if (this.mode === 'phone') {
        this.say(t.errWho);
        this.buyerBox.querySelector<HTMLElement>('input:not([type=radio]),select')?.focus();
        return null;
      }
      const g = this.guestInputs;
      const phone = nationalDigits(g.phone.value);
      need('customer_first_name', g.first.value.trim() !== '', t.errRequired);
      need('customer_last_name', g.last.value.trim() !== '', t.errRequired);
      need('customer_email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(g.email.value.trim()), t.errEmail);
      need('customer_phone', phone.length >= 4, t.errPhone);
      Object.assign(body, {
        customer_first_name: g.first.value.trim(),
        customer_last_name: g.last.value.trim(),
        customer_email: g.email.value.trim(),
        customer_country_code: g.country.value,
        customer_phone: phone,
      });
    }
    const plan = this.planInputs.find((r) => r.checked);
    if (plan) body.subscription_plan = Number(plan.value);
    const fields: Record<string, unknown> = {};
    const files: [string, File][] = [];
    for (const { field, input } of this.fieldInputs) {
      const key = String(field.index);
      if (field.type === 'image' || field.type === 'file') {
        const file = (input as HTMLInputElement).files?.[0];
        if (file) {
          if (!this.checkFile(field, input as HTMLInputElement)) ok = false;
          files.push([`field_files.${key}`, file]);
        } else need(`field_files.${key}`, !field.required, t.errRequired);
        continue;
      }
      if (field.type === 'color' && !input.dataset.touched) {
        need(`fields.${key}`, !field.required, t.errRequired);
        continue;
      }
      const value = input.value.trim();
      if (value === '') {
        need(`fields.${key}`, !field.required, t.errRequired);
        continue;
      }
      fields[key] = field.type === 'select' || field.type === 'number' ? Number(value) : value;
    }
    if (Object.keys(fields).length > 0) body.fields = fields;
    if (this.coupon) body.coupon_code = this.coupon.code;
    const note = this.note.value.trim();
    if (note) body.customer_note = note;
    if (this.estimate().total > 0 && !this.selectedMethod()) {
      this.say(this.methodBox.childElementCount === 0 ? t.errNoMethod : t.errChooseMethod);
      return null;
    }
    if (!ok) {
      this.say(t.errFix);
      return null;
    }
    if (files.length === 0) return body;
    const form = new FormData();
    for (const [k, v] of Object.entries(body)) {
      if (k === 'fields')
        for (const [i, fv] of Object.entries(fields)) form.append(`fields[${i}]`, String(fv));
      else form.append(k, String(v));
    }
    for (const [name, file] of files) form.append(name, file, file.name);
    return form;
  }

  private fingerprint(req: Record<string, unknown> | FormData): string {
    if (!(req instanceof FormData)) return JSON.stringify(req);
    return JSON.stringify(
      [...req.entries()].map(([k, v]) => [
        k,
        typeof v === 'string' ? v : `${v.name}:${v.size}:${v.lastModified}`,
      ]),
    );
  }

  private async pay(): Promise<void> {
    this.clearErrors();
    const req = this.request();
    if (!req) {
      this.dlg.querySelector<HTMLElement>('[aria-invalid=true]')?.focus();
      return;
    }
    const method = this.estimate().total > 0 ? this.selectedMethod() : null;
    // Opened now, in the click, so that pop-up blockers let it through; pointed at the provider later.
    this.popup = null;
    if (method && method !== 'bank') {
      this.popup = window.open('', 'matjar_pay', 'popup,width=520,height=720');
      if (this.popup) this.popup.opener = null;
    }
    try {
      const fingerprint = this.fingerprint(req) + (this.token ?? '');
      if (!this.session || this.session.fingerprint !== fingerprint) {
        const data = this.token
          ? await this.opts.client.call(
              'POST /api/embed/checkout',
              '/api/embed/checkout',
              req as never,
              this.token,
            )
          : await this.opts.client.call(
              'POST /api/embed/guest/checkout',
              '/api/embed/guest/checkout',
              req as never,
            );
        this.session = { fingerprint, data };
      }
      const session = this.session.data;
      if (session.type === 'free_order') {
        this.closePopup();
        this.done(session.order_id, true);
        return;
      }
      const chosen = method ?? session.payment_methods[0]?.id;
      if (!chosen || !session.payment_methods.some((m) => m.id === chosen)) {
        this.closePopup();
        this.fieldError('payment_method', this.t.errMethod);
        this.say(this.t.errMethod);
        return;
      }
      const path = this.token ? '/api/embed/payment/initiate' : '/api/embed/guest/payment/initiate';
      const initiated = await this.opts.client.call(
        this.token ? 'POST /api/embed/payment/initiate' : 'POST /api/embed/guest/payment/initiate',
        path,
        { checkout_url: session.checkout_url, payment_method: chosen },
        this.token,
      );
      this.awaitPayment(session, initiated);
    } catch (err) {
      this.closePopup();
      if (err instanceof ApiError && err.status === 404) this.session = null;
      if (err instanceof ApiError && err.status === 401 && this.token) {
        // The saved sign-in expired: forget it and ask again.
        storage()?.removeItem(this.tokenKey());
        this.token = null;
        this.customer = null;
        this.session = null;
        this.renderBuyer(false);
      }
      throw err;
    }
  }

  /** The store's payment deadline of a manual order, in the buyer's language (UTC, said so). */
  private payWithin(initiated: { payment_days: number; pay_by: string }): string {
    const tag = this.opts.lang === 'ar' ? 'ar-SA-u-ca-gregory-nu-latn' : 'en-GB';
    const date = new Intl.DateTimeFormat(tag, {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: 'UTC',
    }).format(new Date(initiated.pay_by));
    return this.t.payWithin(initiated.payment_days, `${date} UTC`);
  }

  private closePopup(): void {
    try {
      this.popup?.close();
    } catch {
      // already closed or navigated away
    }
    this.popup = null;
  }

  private copyRow(label: string, value: string): HTMLElement[] {
    const t = this.t;
    const btn = h('button', { type: 'button', class: 'btn', 'aria-label': `${t.copy} ${label}` }, t.copy);
    btn.addEventListener('click', () => {
      const done = (): void => {
        btn.textContent = t.copied;
        this.later(() => (btn.textContent = t.copy), 1500);
      };
      navigator.clipboard?.writeText(value).then(done, () => undefined);
    });
    return [h('dt', {}, label), h('dd', {}, value), btn];
  }

  private awaitPayment(session: Paid, initiated: Initiation): void {
    const t = this.t;
    this.paying = true;
    const amount = this.money(toMinor(session.amount));
    const back = h('button', { type: 'button', class: 'link' }, t.otherMethod);
    back.addEventListener('click', () => {
      this.paying = false;
      this.closePopup();
      this.show(this.form, false);
      this.payBtn.focus();
    });
    const status = h(
      'p',
      { class: 'muted', role: 'status' },
      h('span', { class: 'spin', 'aria-hidden': 'true' }),
      t.waiting,
    );
    let view: HTMLElement;
    if (initiated.type === 'redirect') {
      const link = h(
        'a',
        {
          class: 'btn primary',
          href: initiated.redirect_url,
          target: 'matjar_pay',
          rel: 'noopener',
          'data-autofocus': true,
        },
        t.openPayment,
      );
      if (this.popup && !this.popup.closed) this.popup.location.href = initiated.redirect_url;
      else this.say(t.errPopup);
      view = h('div', {}, h('h3', {}, t.total, ': ', amount), h('p', {}, t.popupHint), link, status, back);
    } else if (initiated.type === 'paypal_manual') {
      this.closePopup();
      view = h(
        'div',
        {},
        h('h3', {}, t.paypalTitle),
        h('p', {}, t.paypalHow(amount)),
        h(
          'dl',
          { class: 'copy' },
          this.copyRow('PayPal', initiated.paypal_email),
          this.copyRow(t.amount, session.amount),
        ),
        h('p', { class: 'deadline' }, this.payWithin(initiated)),
        h('p', { class: 'muted' }, t.manualWait),
        status,
      );
    } else {
      this.closePopup();
      const b = initiated.bank_details;
      view = h(
        'div',
        {},
        h('h3', {}, t.bankTitle),
        h('p', {}, t.bankHow(amount)),
        h(
          'dl',
          { class: 'copy' },
          this.copyRow(t.bankName, b.bank_name),
          this.copyRow(t.accountName, b.account_name),
          this.copyRow(t.accountNumber, b.account_number),
          this.copyRow(t.iban, b.iban),
          this.copyRow(t.amount, session.amount),
        ),
        h('p', { class: 'deadline' }, this.payWithin(initiated)),
        h('p', { class: 'muted' }, t.manualWait),
        status,
      );
    }
    this.show(view);
    this.poll(session.checkout_url);
  }

  private poll(checkoutUrl: string): void {
    const check = async (): Promise<void> => {
      if (!this.paying) return;
      try {
        const status = await this.opts.client.call(
          'GET /api/embed/payment/status/{checkoutUrl}',
          `/api/embed/payment/status/${encodeURIComponent(checkoutUrl)}`,
        );
        if (status.is_paid && status.order_id !== null) {
          this.closePopup();
          this.done(status.order_id, false);
          return;
        }
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          this.paying = false;
          this.session = null;
          this.say(this.t.errCheckoutGone);
          return;
        }
        // Anything else (offline for a moment, a 5xx) is retried on the next tick.
      }
      this.later(() => void check(), POLL_MS);
    };
    this.later(() => void check(), POLL_MS);
  }

  private done(orderId: number, free: boolean): void {
    const t = this.t;
    this.paying = false;
    this.session = null;
    this.clearErrors();
    const ok = h('button', { type: 'button', class: 'btn primary', onclick: () => this.close() }, t.done);
    this.show(
      h(
        'div',
        { class: 'center', role: 'status' },
        h('h3', {}, t.thanks),
        h('p', {}, free ? t.freeDone : t.paid),
        h('p', { class: 'muted' }, t.orderId),
        h('p', { class: 'big', 'data-order-id': String(orderId) }, String(orderId)),
        ok,
      ),
      false,
    );
    ok.focus();
    this.emit('matjar:paid', { order_id: orderId, product_id: this.product.id });
  }
}

/** Applies the CSS as a constructed stylesheet when the browser can (allowed by any CSP). */
function adopt(root: ShadowRoot): boolean {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
    return true;
  } catch {
    return false;
  }
}
