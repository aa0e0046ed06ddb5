import type { ProductView } from '../../shared/services/catalogue';
import type { PageProduct } from '../../shared/services/store-pages/catalogue';
import { parseMoney } from '../../shared/money';
import { escapeHtml } from '../pay/html';
import { formatAmount } from '../pay/i18n';
import { PAGE_STRINGS, pick } from './i18n';
import { clip, layout, link, priceHtml, reading, type PageContext, type Seo } from './layout';

export interface CheckoutForm {
  values: Record<string, string>;
  errors: Record<string, string>;
  /** A refusal that names no field (a coupon refused, stock gone, no method...). */
  alert: string | null;
}

const DATE_INPUT: Record<string, string> = {
  text: 'text',
  number: 'number',
  date: 'date',
  datetime: 'datetime-local',
  color: 'color',
};

/**
 * The hosted checkout (docs/store-pages.md): the guest checkout's inputs with the widget's autocomplete
 * tokens, the product's custom fields (uploads as file inputs, so the form is multipart), a coupon, and
 * the payment methods as radio inputs whose value is the method id. Posted to itself; no script.
 */
export function checkoutView(
  pc: PageContext,
  product: PageProduct,
  embed: Readonly<ProductView>,
  form: CheckoutForm,
): string {
  const t = PAGE_STRINGS[pc.locale];
  const name = pick(pc.locale, product.name, product.name_ar);
  const v = (key: string, fallback = ''): string => escapeHtml(form.values[key] ?? fallback);
  const err = (key: string): { attrs: string; html: string } =>
    form.errors[key]
      ? {
          attrs: ` aria-invalid="true" aria-describedby="e-${escapeHtml(key.replace(/\./g, '-'))}"`,
          html: `<p class="error" id="e-${escapeHtml(key.replace(/\./g, '-'))}">${escapeHtml(form.errors[key])}</p>`,
        }
      : { attrs: '', html: '' };
  const input = (
    key: string,
    label: string,
    opts: { type?: string; autocomplete?: string; required?: boolean; extra?: string; value?: string },
  ): string => {
    const e = err(key);
    const id = `f-${key.replace(/\./g, '-')}`;
    return `<div class="field"><label for="${id}">${escapeHtml(label)}</label><input id="${id}" name="${escapeHtml(key)}" type="${opts.type ?? 'text'}"${opts.autocomplete ? ` autocomplete="${opts.autocomplete}"` : ''}${opts.required ? ' required' : ''}${opts.extra ?? ''} value="${v(key, opts.value)}"${e.attrs}>${e.html}</div>`;
  };

  const custom = embed.fields
    .map((f) => {
      const raw = product.fields[f.index];
      const label = `${pick(pc.locale, raw?.label ?? f.label, raw?.label_ar)}${f.required ? '' : ` (${t.optional})`}`;
      const key = `fields.${f.index}`;
      if (f.type === 'select') {
        const e = err(key);
        return `<div class="field"><label for="f-fields-${f.index}">${escapeHtml(label)}</label><select id="f-fields-${f.index}" name="${key}"${f.required ? ' required' : ''}${e.attrs}><option value="">${escapeHtml(t.chooseOption)}</option>${f.options
          .map((o) => {
            const optLabel = pick(
              pc.locale,
              raw?.options?.[o.index]?.label ?? o.label,
              raw?.options?.[o.index]?.label_ar,
            );
            const extra =
              Number(o.price) > 0
                ? ` (+${formatAmount(parseMoney(o.price, pc.store.currency) ?? 0, pc.store.currency, reading(pc))})`
                : '';
            return `<option value="${o.index}"${form.values[key] === String(o.index) ? ' selected' : ''}>${escapeHtml(optLabel + extra)}</option>`;
          })
          .join('')}</select>${e.html}</div>`;
      }
      if (f.type === 'image' || f.type === 'file') {
        const fileKey = `field_files.${f.index}`;
        const e = err(fileKey).html ? err(fileKey) : err(key);
        const accept = f.upload?.accept ?? [];
        const mb = Math.round((f.upload?.max_size_bytes ?? 0) / (1024 * 1024));
        return `<div class="field"><label for="f-files-${f.index}">${escapeHtml(label)}</label><input id="f-files-${f.index}" type="file" name="${fileKey}"${accept.length ? ` accept="${escapeHtml(accept.map((a) => (a.startsWith('.') ? a : `.${a}`)).join(','))}"` : ''}${f.required ? ' required' : ''}${e.attrs}><p class="hint">${escapeHtml(t.fileHint(accept, mb))}</p>${e.html}</div>`;
      }
      return input(key, label, {
        type: DATE_INPUT[f.type] ?? 'text',
        required: f.required,
        extra: f.type === 'text' ? ' maxlength="1000"' : f.type === 'number' ? ' step="any"' : '',
      });
    })
    .join('');

  const plans = embed.subscription_plans.length
    ? `<fieldset><legend class="legend">${escapeHtml(t.plan)}</legend>${embed.subscription_plans
        .map(
          (p, i) =>
            `<label class="choice"><input type="radio" name="subscription_plan" value="${p.id}"${(form.values.subscription_plan ?? (i === 0 ? String(p.id) : '')) === String(p.id) ? ' checked' : ''} required> <bdi>${escapeHtml(p.name)}</bdi> · <span class="price">${escapeHtml(t.perPeriod(formatAmount(parseMoney(p.price, pc.store.currency) ?? 0, pc.store.currency, reading(pc)), t.durations[p.duration] ?? p.duration))}</span></label>`,
        )
        .join('')}${err('subscription_plan').html}</fieldset>`
    : '';

  const chosen = form.values.payment_method ?? embed.payment_methods[0]?.id;
  const methods = embed.payment_methods.length
    ? `<fieldset><legend class="legend">${escapeHtml(t.paymentMethod)}</legend>${embed.payment_methods
        .map(
          (m) =>
            `<label class="choice"><input type="radio" name="payment_method" value="${escapeHtml(m.id)}"${m.id === chosen ? ' checked' : ''} required> ${escapeHtml(pc.locale === 'ar' ? m.name_ar : m.name_en)}</label>`,
        )
        .join('')}${err('payment_method').html}</fieldset><p class="hint">${escapeHtml(t.secure)}</p>`
    : `<p class="alert">${escapeHtml(t.noMethods)}</p>`;

  const alert = form.alert ?? (Object.keys(form.errors).length ? t.fixErrors : null);
  const seo: Seo = {
    title: `${t.checkoutTitle}: ${name} · ${pc.store.name}`,
    description: clip(`${t.checkoutTitle}: ${name}`, 160),
    image: null,
    type: 'website',
    noindex: true,
  };
  const body = `<p class="muted"><a href="${escapeHtml(link(pc, `/p/${product.slug}`))}">${escapeHtml(name)}</a></p>
<h1>${escapeHtml(t.checkoutTitle)}</h1>
<div class="product">
<form class="panel" method="post" action="${escapeHtml(link(pc, `/checkout/${product.slug}`))}" enctype="multipart/form-data" novalidate>
${alert ? `<p class="alert" role="alert">${escapeHtml(alert)}</p>` : ''}
<h2>${escapeHtml(t.yourDetails)}</h2>
<div class="row">
${input('customer_first_name', t.firstName, { autocomplete: 'given-name', required: true, extra: ' maxlength="100"' })}
${input('customer_last_name', t.lastName, { autocomplete: 'family-name', required: true, extra: ' maxlength="100"' })}
</div>
${input('customer_email', t.email, { type: 'email', autocomplete: 'email', required: true, extra: ' maxlength="254" dir="ltr"' })}
<div class="row">
${input('customer_country_code', t.countryCode, { type: 'text', autocomplete: 'tel-country-code', required: true, value: '966', extra: ' inputmode="numeric" maxlength="6" dir="ltr"' })}
${input('customer_phone', t.phone, { type: 'tel', autocomplete: 'tel-national', required: true, extra: ' inputmode="tel" maxlength="25" dir="ltr"' })}
</div>
<p class="hint">${escapeHtml(t.phoneHint)}</p>
${plans}
${custom ? `<h2>${escapeHtml(t.details)}</h2>${custom}` : ''}
${input('quantity', t.quantity, { type: 'number', required: true, value: '1', extra: ` min="1" max="${embed.max_per_order}" inputmode="numeric"` })}
${input('coupon_code', t.coupon, { extra: ' maxlength="100" autocomplete="off" dir="ltr"' })}
${methods}
${embed.payment_methods.length ? `<button type="submit">${escapeHtml(t.continueToPay)}</button>` : ''}
</form>
<div class="panel">
${product.image_url ? `<img class="hero" src="${escapeHtml(product.image_url)}" alt="" width="800" height="600">` : ''}
<h2><bdi>${escapeHtml(name)}</bdi></h2>
<p>${escapeHtml(t.total)}: ${priceHtml(product, pc.store.currency, reading(pc))}</p>
</div>
</div>`;
  return layout(pc, seo, body);
}
