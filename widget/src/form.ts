import type { Product } from './api';
import type { Ctx } from './context';
import { nationalDigits } from './countries';
import { h, uid } from './dom';
import { Choice, localDigits, maxQuantity, quantityOf, toMinor } from './pricing';
import { PriceBox } from './price';
import { SignIn } from './signin';

/**
 * The purchase form: the product (price, stock, description), who is buying, plans, custom fields with
 * uploads checked in the browser, quantity, coupon, note, payment method, summary and Pay. `request()`
 * turns it into the checkout request, or names what is missing.
 */

type Field = Product['fields'][number];
const MiB = 1024 * 1024;

export class PurchaseForm {
  readonly form: HTMLFormElement;
  readonly buyer: SignIn;
  readonly price: PriceBox;
  private readonly qty: HTMLInputElement;
  private readonly note: HTMLTextAreaElement;
  private planInputs: HTMLInputElement[] = [];
  private readonly fieldInputs: { field: Field; input: HTMLInputElement | HTMLSelectElement }[] = [];

  constructor(
    private readonly c: Ctx,
    onPay: () => void,
  ) {
    const p = c.product();
    const { t, controls: k, money } = c;
    const d = c.digits();
    this.form = h('form', { novalidate: true });
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      onPay();
    });
    this.form.addEventListener('input', () => this.price.changed());
    this.form.addEventListener('change', () => this.price.changed());

    const stock = p.stock.is_in_stock
      ? p.stock.quantity !== null && p.stock.quantity <= 10
        ? t.left(p.stock.quantity)
        : t.inStock
      : t.outOfStock;
    const intro = h(
      'div',
      {},
      h(
        'div',
        { class: 'price' },
        money(toMinor(p.price.actual, d)),
        p.price.original > p.price.actual ? h('s', {}, money(toMinor(p.price.original, d))) : null,
      ),
      h('p', { class: p.stock.is_in_stock ? 'muted' : 'ferr' }, stock),
      // The merchant's own words may be in either language: their direction is their own.
      p.description ? h('p', { class: 'muted', dir: 'auto' }, p.description) : null,
    );

    this.buyer = new SignIn(c);
    this.buyer.render(false);

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
            h(
              'label',
              { class: 'opt' },
              this.planInputs[i],
              h('bdi', {}, plan.name),
              ` · ${localDigits(plan.price_formatted, this.c.lang, this.c.product().digits ?? 'western')}`,
            ),
          ),
        ),
      );
      // The buyer's consent to renewals, before they pay.
      if (p.subscription_plans.some((plan) => plan.duration !== 'lifetime')) {
        options.append(h('p', { class: 'muted' }, t.renewsNote));
      }
    }
    for (const field of p.fields) options.append(this.customField(field));

    const max = maxQuantity(p);
    this.qty = k.input({ type: 'number', min: 1, max, step: 1, value: 1, inputmode: 'numeric' });
    const step = (delta: number) => () => {
      this.qty.value = String(Math.min(max, Math.max(1, quantityOf(this.qty.value) + delta)));
      this.price.changed();
    };
    options.append(
      k.control(
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
      ),
    );

    this.price = new PriceBox(c, () => this.choice());
    options.append(this.price.couponRow, this.price.couponBox);
    this.note = h('textarea', { maxlength: 500, rows: 2, dir: 'auto' });
    options.append(k.control('customer_note', `${t.note} ${t.optional}`, this.note));

    this.form.append(
      intro,
      this.buyer.box,
      options,
      this.price.methodBox,
      h('section', {}, this.price.summary, this.price.payBtn),
    );
    this.price.changed();
  }

  /** The plan, select options and quantity as they stand. */
  choice(): Omit<Choice, 'coupon'> {
    const options: Record<number, number> = {};
    for (const { field, input } of this.fieldInputs) {
      if (field.type === 'select' && input.value !== '') options[field.index] = Number(input.value);
    }
    const plan = this.planInputs.find((r) => r.checked);
    return { planId: plan ? Number(plan.value) : null, options, quantity: quantityOf(this.qty.value) };
  }

  private customField(field: Field): HTMLElement {
    const { t, controls: k, money } = this.c;
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
          field.options.map((o) => {
            const add = toMinor(o.price, this.c.digits());
            return h('option', { value: String(o.index) }, add > 0 ? `${o.label} (+${money(add)})` : o.label);
          }),
        );
        break;
      case 'image':
      case 'file': {
        const accept = field.upload?.accept ?? [];
        const mb = Math.round((field.upload?.max_size_bytes ?? 0) / MiB);
        hint = t.fileHint(accept.join(', '), mb);
        input = k.input({
          type: 'file',
          accept: accept.map((a) => `.${a}`).join(','),
          required: field.required,
        });
        input.addEventListener('change', () => this.checkFile(field, input as HTMLInputElement));
        break;
      }
      case 'number':
        input = k.input({ type: 'number', step: 'any', inputmode: 'decimal', required: field.required });
        break;
      case 'date':
        input = k.input({ type: 'date', required: field.required });
        break;
      case 'datetime':
        input = k.input({ type: 'datetime-local', required: field.required });
        break;
      case 'color':
        input = k.input({ type: 'color' });
        // A colour input always has a value; only one the buyer picked is sent.
        input.addEventListener('input', () => (input.dataset.touched = '1'));
        break;
      default:
        input = k.input({ required: field.required, maxlength: 1000, dir: 'auto' });
    }
    this.fieldInputs.push({ field, input });
    return k.control(key, label, input, hint);
  }

  /** Spec, Limits: images JPG, PNG, GIF up to 10 MB; files PDF, DOC, DOCX, TXT, ZIP up to 20 MB. */
  private checkFile(field: Field, input: HTMLInputElement): boolean {
    const key = `field_files.${field.index}`;
    const k = this.c.controls;
    k.clear(key);
    const file = input.files?.[0];
    if (!file) return true;
    const accept = field.upload?.accept ?? [];
    const ext = /\.([^.]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
    if (!accept.includes(ext)) return !k.error(key, this.c.t.errFileType(accept.join(', ')));
    const max = field.upload?.max_size_bytes ?? Infinity;
    if (file.size > max) return !k.error(key, this.c.t.errFileSize(Math.round(max / MiB)));
    return true;
  }

  /** The checkout request from the form, or null after showing what is missing (beside Pay). */
  request(): Record<string, unknown> | FormData | null {
    const { t, controls: k, state, shell } = this.c;
    const payBtn = this.price.payBtn;
    let ok = true;
    const need = (key: string, test: boolean, message: string): void => {
      if (!test && k.error(key, message)) ok = false;
    };
    const choice = this.choice();
    const body: Record<string, unknown> = { product_id: this.c.product().id, quantity: choice.quantity };
    if (!state.customer) {
      if (state.mode === 'phone') {
        shell.say(t.errWho, payBtn, false);
        this.buyer.box.querySelector<HTMLElement>('input:not([type=radio]),select')?.focus();
        return null;
      }
      const g = this.buyer.guest!;
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
    if (choice.planId !== null) body.subscription_plan = choice.planId;
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
    if (state.coupon) body.coupon_code = state.coupon.code;
    const note = this.note.value.trim();
    if (note) body.customer_note = note;
    if (this.price.estimate().total > 0 && !this.price.selectedMethod()) {
      shell.say(this.price.methodBox.childElementCount === 0 ? t.errNoMethod : t.errChooseMethod, payBtn);
      return null;
    }
    if (!ok) {
      // The first field to fix takes the focus; the message sits beside Pay.
      shell.say(t.errFix, payBtn, false);
      return null;
    }
    if (files.length === 0) return body;
    const form = new FormData();
    for (const [key, value] of Object.entries(body)) {
      if (key === 'fields')
        for (const [i, fv] of Object.entries(fields)) form.append(`fields[${i}]`, String(fv));
      else form.append(key, String(value));
    }
    for (const [name, file] of files) form.append(name, file, file.name);
    return form;
  }
}
