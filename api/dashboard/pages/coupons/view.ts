import { withDigits } from '../../../pay/i18n';
import { count } from '../../view-parts';
import type { CouponView } from '../../../../shared/services/coupons/manage';
import { formatDate } from '../../i18n';
import { esc, shellPage, ShellContext, tokenField } from '../../layout';

type Shell = Omit<ShellContext, 'current'>;

export interface CouponForm {
  code: string;
  type: string;
  amount: string;
  max_uses: string;
  min_order: string;
  /** `datetime-local`, the store's wall time. */
  expires_at: string;
  active: boolean;
}

export const emptyCoupon: CouponForm = {
  code: '',
  type: 'percentage',
  amount: '',
  max_uses: '',
  min_order: '',
  expires_at: '',
  active: true,
};

export function couponsView(s: Shell, coupons: CouponView[], notice: string | null): string {
  const t = s.t;
  const rows = coupons
    .map(
      (c) => `<tr><td><code class="whole" data-coupon-code>${esc(c.code)}</code></td>
<td class="num" data-label="${esc(t.discountAmount)}">${esc(withDigits(c.type === 'percentage' ? `${c.amount}%` : c.amount, s))}</td>
<td class="num" data-label="${esc(t.uses)}">${esc(count(s, c.uses))}${c.max_uses ? ` / ${esc(count(s, c.max_uses))}` : ''}</td>
<td class="num" data-label="${esc(t.expires)}">${c.expires_at ? esc(formatDate(c.expires_at, s)) : '—'}</td>
<td data-label="${esc(t.status)}">${esc(c.active ? t.activeCoupon : t.inactive)}</td>
<td class="actions" data-coupon-actions><a href="/merchant/coupons/${c.id}" aria-label="${esc(`${t.edit} ${c.code}`)}">${esc(t.edit)}</a>
<form method="post" action="/merchant/coupons/${c.id}/active">${tokenField(s.formToken)}<input type="hidden" name="active" value="${c.active ? '0' : '1'}"><button type="submit" class="secondary" aria-label="${esc(`${c.active ? t.disable : t.enable} ${c.code}`)}">${esc(c.active ? t.disable : t.enable)}</button></form></td></tr>`,
    )
    .join('');
  return shellPage(
    { ...s, current: 'coupons' },
    t.coupons,
    `<h1>${esc(t.coupons)}</h1>${notice ? `<p class="notice" role="status">${esc(notice)}</p>` : ''}
<p><a class="button" href="/merchant/coupons/new">${esc(t.newCoupon)}</a></p>
<section class="card">${
      coupons.length
        ? `<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">${esc(t.couponCode)}</th><th scope="col">${esc(t.discountAmount)}</th><th scope="col">${esc(t.uses)}</th><th scope="col">${esc(t.expires)}</th><th scope="col">${esc(t.status)}</th><th scope="col"><span class="muted">${esc(t.actions)}</span></th></tr></thead><tbody>${rows}</tbody></table></div>`
        : `<p class="muted">${esc(t.noCoupons)}</p>`
    }</section>`,
  );
}

export function couponFormView(
  s: Shell,
  opts: { id: number | null; values: CouponForm; errors: Record<string, string>; currency: string },
): string {
  const t = s.t;
  const v = opts.values;
  const field = (name: string, label: string, input: string, hint?: string) => {
    const err = opts.errors[name];
    const described = [hint ? `${name}-hint` : '', err ? `${name}-error` : ''].filter(Boolean).join(' ');
    const withAria = input.replace(
      '<input',
      `<input${described ? ` aria-describedby="${described}"` : ''}${err ? ' aria-invalid="true"' : ''}`,
    );
    return `<label for="coupon-${name}">${esc(label)}</label>${withAria}${hint ? `<span id="${name}-hint" class="hint">${esc(hint)}</span>` : ''}${err ? `<p id="${name}-error" class="field-error">${esc(err)}</p>` : ''}`;
  };
  const action = opts.id ? `/merchant/coupons/${opts.id}` : '/merchant/coupons';
  const title = opts.id ? t.editCoupon : t.newCoupon;
  return shellPage(
    { ...s, current: 'coupons' },
    title,
    `<p><a href="/merchant/coupons">${t.dir === 'rtl' ? '→' : '←'} ${esc(t.coupons)}</a></p>
<h1>${esc(title)}</h1>
${Object.keys(opts.errors).length ? `<p class="alert" role="alert">${esc(t.fixErrors)}</p>` : ''}
<form method="post" action="${action}" class="card" novalidate>${tokenField(s.formToken)}
${field('code', t.couponCode, `<input id="coupon-code" name="code" dir="ltr" autocomplete="off" required maxlength="100" value="${esc(v.code)}">`, t.couponCodeHint)}
<label for="coupon-type">${esc(t.discountType)}</label><select id="coupon-type" name="type">${[
      'percentage',
      'fixed',
    ]
      .map(
        (ty) =>
          `<option value="${ty}"${ty === v.type ? ' selected' : ''}>${esc(t.discountTypes[ty])}</option>`,
      )
      .join('')}</select>
${field('amount', t.discountAmount, `<input id="coupon-amount" name="amount" inputmode="decimal" dir="ltr" required value="${esc(v.amount)}">`, t.discountAmountHint(opts.currency))}
${field('max_uses', t.maxUses, `<input id="coupon-max_uses" name="max_uses" inputmode="numeric" dir="ltr" value="${esc(v.max_uses)}">`, t.maxUsesHint)}
${field('min_order', t.minOrder(opts.currency), `<input id="coupon-min_order" name="min_order" inputmode="decimal" dir="ltr" value="${esc(v.min_order)}">`)}
${field('expires_at', t.expiresOn, `<input id="coupon-expires_at" name="expires_at" type="datetime-local" dir="ltr" value="${esc(v.expires_at)}">`, t.inStoreTime(s.timeZone))}
<label class="check"><input type="checkbox" name="active" value="1"${v.active ? ' checked' : ''}> ${esc(t.activeCoupon)}</label>
<button type="submit">${esc(t.save)}</button></form>`,
  );
}
