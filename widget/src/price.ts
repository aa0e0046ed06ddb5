import { ApiError, MethodId } from './api';
import type { Ctx } from './context';
import { onEnter } from './controls';
import { append, h, uid } from './dom';
import { Choice, estimate, Estimate, offeredMethods, toMinor } from './pricing';

/**
 * Coupon and price: the coupon field and what it takes off, the summary, the payment methods the total can
 * be paid by, and the Pay button's words. The amounts come from pricing.ts.
 */
export class PriceBox {
  readonly couponRow: HTMLElement;
  readonly couponBox: HTMLElement;
  readonly methodBox: HTMLElement;
  readonly summary: HTMLElement;
  readonly payBtn: HTMLButtonElement;
  private readonly couponInput: HTMLInputElement;

  constructor(
    private readonly c: Ctx,
    /** The form's plan, options and quantity. */
    private readonly choice: () => Omit<Choice, 'coupon'>,
  ) {
    const { t, controls: k } = c;
    this.couponInput = k.input({ autocomplete: 'off', autocapitalize: 'characters', maxlength: 100 });
    const applyBtn = h('button', { type: 'button', class: 'btn' }, t.apply);
    applyBtn.addEventListener('click', () => void c.busy(applyBtn, () => this.applyCoupon()));
    onEnter(this.couponInput, () => applyBtn.click());
    this.couponBox = h('div', { 'aria-live': 'polite' });
    this.couponRow = h(
      'div',
      { class: 'row' },
      k.control('coupon_code', t.coupon, this.couponInput),
      applyBtn,
    );
    this.methodBox = h('section', {});
    this.summary = h('dl', { class: 'sum' });
    this.payBtn = h('button', {
      type: 'submit',
      class: 'btn primary',
      disabled: !c.product().stock.is_in_stock,
    });
  }

  estimate(): Estimate {
    return estimate(this.c.product(), { ...this.choice(), coupon: this.c.state.coupon }, this.c.digits());
  }

  selectedMethod(): MethodId | null {
    const checked = this.methodBox.querySelector<HTMLInputElement>('input[type=radio]:checked');
    return checked ? (checked.value as MethodId) : null;
  }

  methodName(m: { name_en: string; name_ar: string }): string {
    return this.c.lang === 'ar' ? m.name_ar : m.name_en;
  }

  /** Recomputes the summary and the methods offered after any change to the form. */
  changed(): void {
    const { t, state, money } = this.c;
    if (state.step === 'paying') return;
    const { subtotal, discount, total } = this.estimate();
    const rows: HTMLElement[] = [h('dt', {}, t.subtotal), h('dd', {}, money(subtotal))];
    if (discount > 0) rows.push(h('dt', {}, t.discount), h('dd', { class: 'ok' }, `−${money(discount)}`));
    rows.push(h('dt', { class: 't' }, t.total), h('dd', { class: 't' }, money(total)));
    this.summary.replaceChildren(...rows);
    if (this.payBtn.getAttribute('aria-busy') !== 'true') {
      this.payBtn.textContent = total === 0 ? t.getFree : t.pay(money(total));
    }
    const offered = offeredMethods(
      this.c.product().payment_methods,
      total,
      state.coupon?.payment_restrictions,
      this.c.digits(),
    );
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
        this.c.controls.slot('payment_method', radios[0], error);
      }
    }
    if (state.coupon) this.renderCoupon();
  }

  private renderCoupon(): void {
    const { t, state } = this.c;
    const coupon = state.coupon;
    if (!coupon) {
      this.couponBox.replaceChildren();
      return;
    }
    const remove = h('button', { type: 'button', class: 'link' }, t.remove);
    remove.addEventListener('click', () => {
      state.coupon = null;
      this.couponInput.value = '';
      this.renderCoupon();
      this.changed();
      this.couponInput.focus();
    });
    const names = this.c
      .product()
      .payment_methods.filter((m) => coupon.payment_restrictions.includes(m.id))
      .map((m) => this.methodName(m));
    this.couponBox.replaceChildren();
    append(this.couponBox, [
      h(
        'p',
        { class: 'ok' },
        t.couponApplied(coupon.code, this.c.money(this.estimate().discount)),
        ' ',
        remove,
      ),
      coupon.payment_restrictions.length > 0
        ? h(
            'p',
            { class: 'muted' },
            `${t.errCouponMethods} ${names.join(this.c.lang === 'ar' ? '، ' : ', ')}`,
          )
        : null,
    ]);
  }

  /** A coupon refusal (apply-coupon, or checkout when the quantity changed since) in the buyer's words. */
  couponWords(m: string): string | null {
    const t = this.c.t;
    const min = /minimum order value is\s*(.+)$/i.exec(m);
    if (min)
      return t.errCouponMin(isNaN(Number(min[1])) ? min[1] : this.c.money(toMinor(min[1], this.c.digits())));
    if (!/coupon/i.test(m)) return null;
    if (/not active|expired/i.test(m)) return t.errCouponInactive;
    if (/maximum uses/i.test(m)) return t.errCouponUsed;
    if (/product/i.test(m)) return t.errCouponProduct;
    return t.errCoupon;
  }

  private async applyCoupon(): Promise<void> {
    const { state, client } = this.c;
    this.c.clearErrors();
    const code = this.couponInput.value.trim();
    if (!code) {
      state.coupon = null;
      this.renderCoupon();
      this.changed();
      return;
    }
    try {
      state.coupon = await client.call('POST /api/embed/apply-coupon', '/api/embed/apply-coupon', {
        code,
        product_id: this.c.product().id,
        quantity: this.choice().quantity,
      });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
      const words = this.couponWords(err.message) ?? this.c.t.errCoupon;
      state.coupon = null;
      this.renderCoupon();
      this.changed();
      this.c.controls.error('coupon_code', words);
      this.c.shell.say(words);
      this.couponInput.focus();
      return;
    }
    state.session = null;
    this.changed();
    this.renderCoupon();
  }
}
