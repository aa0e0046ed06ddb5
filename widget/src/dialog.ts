import { CheckoutSession, EmbedClient, Product, Reveal } from './api';
import type { Ctx } from './context';
import { Controls } from './controls';
import { h } from './dom';
import { explain } from './errors';
import { PurchaseForm } from './form';
import { Lang, STRINGS } from './i18n';
import { Payment } from './payment';
import { currencyDigits, formatMoney } from './pricing';
import { Shell, Theme } from './shell';
import { initialState, move } from './state';

export type { Theme };

/**
 * One purchase dialog on the merchant's page, running the whole purchase against the Embed API. The parts:
 * shell.ts (top layer, focus, alert), signin.ts (who is buying), form.ts (the purchase form), price.ts and
 * pricing.ts (coupon and amounts), payment.ts (payment and status); state.ts holds the one state object
 * they share and the steps it may take.
 */

export interface DialogOptions {
  button: HTMLElement;
  client: EmbedClient;
  productId: string;
  theme: Theme;
  lang: Lang;
  /** The product answer, kept for the page's life (see index.ts). */
  loadProduct: () => Promise<Product>;
  onClosed: () => void;
}

/**
 * What the buyer typed (name, e-mail, phone, note), kept in memory for the page's life by embed key, so a
 * dialog closed and opened again (the same product or another of the store) starts with it. Never stored:
 * reloading the page forgets it.
 */
const TYPED_FIELDS = ['given-name', 'family-name', 'email', 'tel-national'];
const typed = new Map<string, Record<string, string>>();

export class CheckoutDialog {
  private readonly c: Ctx;
  private form: PurchaseForm | null = null;

  constructor(private readonly opts: DialogOptions) {
    const t = STRINGS[opts.lang];
    const state = initialState();
    const controls = new Controls(opts.lang);
    const shell = new Shell({
      t,
      lang: opts.lang,
      theme: opts.theme,
      onClose: () => this.close(),
      backdropCloses: () => state.step !== 'paying',
    });
    let digits = 2;
    const c: Ctx = {
      t,
      lang: opts.lang,
      client: opts.client,
      state,
      shell,
      controls,
      product: () => state.product!,
      digits: () => digits,
      money: (minor) =>
        formatMoney(minor, state.product!.currency, opts.lang, digits, state.product!.digits ?? 'western'),
      clearErrors: () => {
        shell.alert.textContent = '';
        controls.clear();
      },
      explain: (err) =>
        explain(err, t, opts.lang, controls, this.form ? (m) => this.form!.price.couponWords(m) : null),
      busy: (button, action) => this.busy(button, action),
      tokenKey: `matjar:token:${opts.client.key}`,
    };
    this.c = c;
    this.setDigits = (currency) => (digits = currencyDigits(currency));
    shell.open();
    this.emit('matjar:open', { product_id: opts.productId });
    void this.load();
  }

  private readonly setDigits: (currency: string) => void;

  /** Keeps what the buyer typed in the purchase form (see `typed`). */
  private keepTyped(): void {
    if (!this.form) return;
    const kept: Record<string, string> = { ...(typed.get(this.opts.client.key) ?? {}) };
    for (const name of TYPED_FIELDS) {
      const input = this.form.form.querySelector<HTMLInputElement>(`input[autocomplete="${name}"]`);
      if (input) kept[name] = input.value;
    }
    const note = this.form.form.querySelector<HTMLTextAreaElement>('textarea');
    if (note) kept.note = note.value;
    typed.set(this.opts.client.key, kept);
  }

  /** Puts back what the buyer typed before, into the fields still empty. */
  private restoreTyped(): void {
    const kept = typed.get(this.opts.client.key);
    if (!kept || !this.form) return;
    const fill = (el: HTMLInputElement | HTMLTextAreaElement | null, value: string | undefined) => {
      if (!el || !value || el.value) return;
      el.value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    };
    for (const name of TYPED_FIELDS) {
      fill(this.form.form.querySelector<HTMLInputElement>(`input[autocomplete="${name}"]`), kept[name]);
    }
    fill(this.form.form.querySelector<HTMLTextAreaElement>('textarea'), kept.note);
  }

  close(): void {
    if (this.c.state.step === 'form' || this.c.state.step === 'paying') this.keepTyped();
    if (!move(this.c.state, 'close')) return;
    this.c.shell.teardown();
    // The page may have removed the button (a body swap): then the page's document hears the event.
    if (this.opts.button.isConnected) this.opts.button.focus();
    this.emit('matjar:close', {});
    this.opts.onClosed();
  }

  private emit(name: string, detail: Record<string, unknown>): void {
    const target = this.opts.button.isConnected ? this.opts.button : document;
    target.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, detail }));
  }

  /** Runs an action with its button busy; a failure is explained beside the button, which is the retry. */
  private async busy(button: HTMLButtonElement, action: () => Promise<void>): Promise<void> {
    if (button.disabled) return;
    const { t, shell, state } = this.c;
    const label = button.textContent;
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
    button.textContent = t.working;
    try {
      await action();
    } catch (err) {
      if (state.step !== 'closed') {
        const words = this.c.explain(err);
        const invalid = shell.dlg.querySelector<HTMLElement>('[aria-invalid=true]');
        shell.say(words, button, !invalid);
        invalid?.focus();
      }
    } finally {
      button.disabled = false;
      button.removeAttribute('aria-busy');
      if (button.textContent === t.working) button.textContent = label ?? '';
    }
  }

  private async load(): Promise<void> {
    const { t, shell, state } = this.c;
    shell.alert.textContent = '';
    shell.showBusy(
      h('div', { class: 'center' }, h('div', { class: 'spin', 'aria-hidden': 'true' }), t.loading),
    );
    let form: PurchaseForm;
    try {
      state.product = await this.opts.loadProduct();
      this.setDigits(state.product.currency);
      if (state.step === 'closed') return;
      form = new PurchaseForm(this.c, () => void this.c.busy(form.price.payBtn, () => payment.pay()));
      await form.buyer.restore();
    } catch (err) {
      if (!move(state, 'loadFailed')) return;
      shell.heading.textContent = t.errFailed;
      const retry = h('button', { type: 'button', class: 'btn' }, t.retry);
      retry.addEventListener('click', () => {
        if (move(state, 'retry')) void this.load();
      });
      shell.say(this.c.explain(err));
      shell.show(h('div', { class: 'center' }, retry));
      return;
    }
    if (!move(state, 'loaded')) return;
    if (state.product.purchasable === false) {
      // Said before the buyer types anything (no payment method on, or sold out): nothing to fill in.
      shell.heading.textContent = state.product.name;
      const ok = h('button', { type: 'button', class: 'btn', onclick: () => this.close() }, t.close);
      shell.show(
        h(
          'div',
          {
            class: 'center',
            role: 'status',
            'data-not-purchasable': state.product.not_purchasable_reason ?? '',
          },
          h('h3', {}, t.notPurchasable),
          h('p', {}, state.product.not_purchasable_reason === 'out_of_stock' ? t.soldOut : t.noPaymentMethod),
          ok,
        ),
        false,
      );
      ok.focus();
      return;
    }
    this.form = form;
    const payment = new Payment(this.c, form, (orderId, free, session) => this.done(orderId, free, session));
    form.buyer.render(false);
    form.price.changed();
    shell.heading.textContent = state.product.name;
    shell.show(form.form);
    this.restoreTyped();
  }

  private done(orderId: number, free: boolean, session: CheckoutSession | null): void {
    const { t, state, shell } = this.c;
    if (!move(state, 'paid')) return;
    state.session = null;
    this.c.clearErrors();
    const ok = h('button', { type: 'button', class: 'btn primary', onclick: () => this.close() }, t.done);
    const goods = h('div', { 'data-goods': '' });
    shell.show(
      h(
        'div',
        { class: 'center', role: 'status' },
        h('h3', {}, t.thanks),
        h('p', {}, free ? t.freeDone : t.paid),
        h('p', { class: 'muted' }, t.orderId),
        h('p', { class: 'big', 'data-order-id': String(orderId) }, String(orderId)),
        goods,
        ok,
      ),
      false,
    );
    ok.focus();
    this.emit('matjar:paid', { order_id: orderId, product_id: state.product!.id });
    if (session) void this.reveal(session, goods, 0);
  }

  /**
   * The goods of the paid order, shown to this browser only (its checkout's reveal token, kept in memory
   * and never stored): code keys, license keys, downloads, and where else they were sent. Asked again a
   * few times while the answer says some are still being prepared.
   */
  private async reveal(session: CheckoutSession, into: HTMLElement, tries: number): Promise<void> {
    const { t, state, shell, client } = this.c;
    let answer: Reveal;
    try {
      answer = await client.call('POST /api/embed/order/reveal', '/api/embed/order/reveal', {
        checkout_url: session.checkout_url,
        reveal_token: session.reveal_token,
      });
    } catch {
      return; // the keys are in the message and e-mail too
    }
    if (state.step !== 'done' || answer.state !== 'shown') return;
    const copyBtn = (value: string): HTMLElement => {
      const btn = h('button', { type: 'button', class: 'btn', 'aria-label': `${t.copy} ${value}` }, t.copy);
      btn.addEventListener('click', () => {
        navigator.clipboard?.writeText(value).then(
          () => {
            btn.textContent = t.copied;
            shell.later(() => (btn.textContent = t.copy), 1500);
          },
          () => undefined,
        );
      });
      return btn;
    };
    const where = [answer.sent_to.phone, answer.sent_to.email].filter((x): x is string => !!x);
    into.replaceChildren(
      h('p', { 'data-order-number': String(answer.order_number) }, t.storeNumber(answer.order_number)),
      ...answer.items.map((item) =>
        h(
          'section',
          { class: 'goods' },
          h('h4', {}, t.yourGoods, ': ', item.name),
          ...[...item.codes, ...item.license_keys].map((key) =>
            h('p', { class: 'key' }, h('code', { dir: 'ltr', 'data-key': '' }, key), ' ', copyBtn(key)),
          ),
          ...item.downloads.map((d) =>
            h('p', {}, h('a', { href: d.url, target: '_blank', rel: 'noopener' }, t.download, ' ', d.name)),
          ),
        ),
      ),
      where.length
        ? h(
            'p',
            { class: 'muted' },
            t.alsoSentTo,
            ...where.map((w) => [' ', h('span', { dir: 'ltr', 'data-sent-to': '' }, w)]),
          )
        : '',
    );
    if (answer.pending && tries < 5) shell.later(() => void this.reveal(session, into, tries + 1), 2500);
  }
}
