import { ApiError, Initiation, CheckoutSession } from './api';
import type { Ctx } from './context';
import { h } from './dom';
import type { PurchaseForm } from './form';
import { move } from './state';
import { numberTag, toMinor } from './pricing';

/**
 * Payment and status: the checkout (reused while the form is unchanged), the payment start, the provider's
 * window (opened during the Pay click so pop-up blockers let it through), manual payment details, the
 * status poll (spec, Embed API payment status: every 2 to 3 seconds), and the order id at the end.
 */

type Paid = CheckoutSession & { type: 'payment_required' };

const POLL_MS = 2500;
/** Status checks that may fail in a row (about 7 s) before the buyer is told. */
const POLL_PATIENCE = 3;

/**
 * The provider's window. Its `opener` is left alone: a window whose opener was cleared is no longer one
 * this page may close (Chromium refuses `close()`), and it would stay open over the confirmation. It only
 * ever shows the platform's payment page and the store's own payment provider.
 */
const openWindow = (url: string): Window | null =>
  window.open(url, 'matjar_pay', 'popup,width=520,height=720');

export class Payment {
  constructor(
    private readonly c: Ctx,
    private readonly form: PurchaseForm,
    /** The order exists: show it (and its goods, through the checkout's reveal token) and tell the page. */
    private readonly onPaid: (orderId: number, free: boolean, session: CheckoutSession | null) => void,
  ) {}

  private fingerprint(req: Record<string, unknown> | FormData): string {
    if (!(req instanceof FormData)) return JSON.stringify(req);
    return JSON.stringify(
      [...req.entries()].map(([k, v]) => [
        k,
        typeof v === 'string' ? v : `${v.name}:${v.size}:${v.lastModified}`,
      ]),
    );
  }

  async pay(): Promise<void> {
    const { c } = this;
    const { state, client, t } = c;
    const price = this.form.price;
    c.clearErrors();
    const req = this.form.request();
    if (!req) {
      c.shell.dlg.querySelector<HTMLElement>('[aria-invalid=true]')?.focus();
      return;
    }
    const method = price.estimate().total > 0 ? price.selectedMethod() : null;
    // Opened now, in the click, so that pop-up blockers let it through; pointed at the provider later.
    this.closePopup();
    if (method && method !== 'bank')
      state.popup = window.open('', 'matjar_pay', 'popup,width=520,height=720');
    try {
      const fingerprint = this.fingerprint(req) + (state.token ?? '');
      if (!state.session || state.session.fingerprint !== fingerprint) {
        const data = state.token
          ? await client.call('POST /api/embed/checkout', '/api/embed/checkout', req as never, state.token)
          : await client.call('POST /api/embed/guest/checkout', '/api/embed/guest/checkout', req as never);
        state.session = { fingerprint, data };
      }
      const session = state.session.data;
      if (session.type === 'free_order') {
        this.closePopup();
        this.onPaid(session.order_id, true, session);
        return;
      }
      const chosen = method ?? session.payment_methods[0]?.id;
      if (!chosen || !session.payment_methods.some((m) => m.id === chosen)) {
        this.closePopup();
        c.controls.error('payment_method', t.errMethod);
        c.shell.say(t.errMethod, price.payBtn);
        return;
      }
      const initiated = await client.call(
        state.token ? 'POST /api/embed/payment/initiate' : 'POST /api/embed/guest/payment/initiate',
        state.token ? '/api/embed/payment/initiate' : '/api/embed/guest/payment/initiate',
        { checkout_url: session.checkout_url, payment_method: chosen },
        state.token,
      );
      if (state.step !== 'form') return; // closed meanwhile
      this.awaitPayment(session, initiated);
    } catch (err) {
      this.closePopup();
      if (err instanceof ApiError && err.status === 404) state.session = null;
      // The saved sign-in expired: forget it and ask again.
      if (err instanceof ApiError && err.status === 401 && state.token) this.form.buyer.forget(false);
      throw err;
    }
  }

  closePopup(): void {
    const popup = this.c.state.popup;
    this.c.state.popup = null;
    try {
      if (popup && !popup.closed) popup.close();
    } catch {
      // already closed or navigated away
    }
  }

  /** The store's payment deadline of a manual order, in the buyer's language (UTC, said so). */
  private payWithin(initiated: { payment_days: number; pay_by: string }): string {
    const tag = numberTag(this.c.lang, this.c.product().digits ?? 'western', true);
    const date = new Intl.DateTimeFormat(tag, {
      dateStyle: 'long',
      timeStyle: 'short',
      timeZone: 'UTC',
    }).format(new Date(initiated.pay_by));
    return this.c.t.payWithin(initiated.payment_days, `${date} UTC`);
  }

  private copyRow(label: string, value: string): HTMLElement[] {
    const t = this.c.t;
    const btn = h('button', { type: 'button', class: 'btn', 'aria-label': `${t.copy} ${label}` }, t.copy);
    btn.addEventListener('click', () => {
      const done = (): void => {
        btn.textContent = t.copied;
        this.c.shell.later(() => (btn.textContent = t.copy), 1500);
      };
      navigator.clipboard?.writeText(value).then(done, () => undefined);
    });
    return [h('dt', {}, label), h('dd', {}, value), btn];
  }

  private awaitPayment(session: Paid, initiated: Initiation): void {
    const { c } = this;
    const { t, state, shell } = c;
    move(state, 'started');
    state.pollFailures = 0;
    const amount = c.money(toMinor(session.amount, c.digits()));
    const back = h('button', { type: 'button', class: 'link' }, t.otherMethod);
    back.addEventListener('click', () => {
      if (!move(state, 'back')) return;
      this.closePopup();
      shell.show(this.form.form, false);
      this.form.price.changed();
      this.form.price.payBtn.focus();
    });
    const status = h('span', {}, t.waiting);
    const statusLine = h(
      'p',
      { class: 'muted', role: 'status' },
      h('span', { class: 'spin', 'aria-hidden': 'true' }),
      status,
    );
    let view: HTMLElement;
    let link: HTMLAnchorElement | null = null;
    if (initiated.type === 'redirect') {
      link = h(
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
      const popup = state.popup && !state.popup.closed ? state.popup : null;
      if (popup) popup.location.href = initiated.redirect_url;
      // Reopened by the buyer: kept, so that it is watched and closed after paying like the first one.
      link.addEventListener('click', (e) => {
        const again = openWindow(initiated.redirect_url);
        if (!again) return; // blocked: the link itself opens it
        e.preventDefault();
        state.popup = again;
      });
      view = h(
        'div',
        {},
        h('h3', {}, t.total, ': ', amount),
        // A blocked window: the alert says to use the button, not to look for a window that never opened.
        popup ? h('p', {}, t.popupHint) : null,
        link,
        statusLine,
        back,
      );
      shell.show(view);
      if (!popup) shell.say(t.errPopup, link, false);
    } else {
      this.closePopup();
      const rows =
        initiated.type === 'paypal_manual'
          ? [this.copyRow('PayPal', initiated.paypal_email), this.copyRow(t.amount, session.amount)]
          : [
              this.copyRow(t.bankName, initiated.bank_details.bank_name),
              this.copyRow(t.accountName, initiated.bank_details.account_name),
              this.copyRow(t.accountNumber, initiated.bank_details.account_number),
              this.copyRow(t.iban, initiated.bank_details.iban),
              this.copyRow(t.amount, session.amount),
            ];
      view = h(
        'div',
        {},
        h('h3', {}, initiated.type === 'paypal_manual' ? t.paypalTitle : t.bankTitle),
        h('p', {}, initiated.type === 'paypal_manual' ? t.paypalHow(amount) : t.bankHow(amount)),
        h('dl', { class: 'copy' }, ...rows),
        h('p', { class: 'deadline' }, this.payWithin(initiated)),
        h('p', { class: 'muted' }, t.manualWait),
        statusLine,
      );
      shell.show(view);
    }
    this.poll(session.checkout_url, status, link);
  }

  private poll(checkoutUrl: string, status: HTMLElement, link: HTMLAnchorElement | null): void {
    const { c } = this;
    const { state, shell, t } = c;
    const check = async (): Promise<void> => {
      if (state.step !== 'paying') return;
      try {
        const answer = await c.client.call(
          'GET /api/embed/payment/status/{checkoutUrl}',
          `/api/embed/payment/status/${encodeURIComponent(checkoutUrl)}`,
        );
        if (state.step !== 'paying') return;
        if (state.pollFailures >= POLL_PATIENCE) status.textContent = t.waiting;
        state.pollFailures = 0;
        if (answer.is_paid && answer.order_id !== null) {
          this.closePopup();
          this.onPaid(answer.order_id, false, state.session?.data ?? null);
          return;
        }
      } catch (err) {
        if (state.step !== 'paying') return;
        if (err instanceof ApiError && err.status === 404) {
          move(state, 'gone');
          state.session = null;
          this.closePopup();
          shell.show(this.form.form, false);
          this.form.price.changed();
          shell.say(t.errCheckoutGone, this.form.price.payBtn);
          return;
        }
        // Anything else (offline for a moment, a 5xx) is retried on the next tick; a while of it is said.
        if (++state.pollFailures === POLL_PATIENCE) status.textContent = t.pollTrouble;
      }
      // The provider's window closed while the payment is not confirmed: offer to reopen it or go back.
      if (state.popup && state.popup.closed && link) {
        state.popup = null;
        shell.say(t.popupClosed, link);
      }
      shell.later(() => void check(), POLL_MS);
    };
    shell.later(() => void check(), POLL_MS);
  }
}
