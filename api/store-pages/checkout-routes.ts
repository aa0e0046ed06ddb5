import Joi from 'joi';
import { fieldMessage } from './field-errors';
import type { Store } from '../../db/models';
import { DomainError, ValidationError } from '../../shared/errors';
import { buyerErrorMessage, ERROR_MESSAGES_AR, type TranslatedCode } from '../../shared/i18n/buyer-messages';
import { LIMITS } from '../../shared/rate-limits';
import { type ProductView } from '../../shared/services/catalogue';
import { buyerFromGuest, createCheckout } from '../../shared/services/checkout';
import { startFromCheckoutPage } from '../../shared/services/payments';
import { storeBySlug, storeCatalogue, type PageProduct } from '../../shared/services/store-pages/catalogue';
import type { AppContext } from '../context';
import { guestCheckoutBody } from '../embed/checkout/schemas';
import { formBody, uploadsOf } from '../embed/checkout/multipart';
import { embedErrorCode } from '../envelopes';
import { defineRoute } from '../http/route';
import { toErrorView } from '../middleware/error-handler';
import { byClientIp, rateLimit } from '../middleware/rate-limit';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { sendHtml } from '../pay/html';
import { bindRevealCookie } from '../pay/reveal-cookie';
import { type Locale } from '../pay/i18n';
import { pageActionView } from '../pay/views';
import { requestDeps } from '../request-deps';
import { checkoutView, type CheckoutForm } from './checkout-view';
import { creatorCodeFor } from './ref';
import {
  contextOf,
  embedProduct,
  langQuery,
  limited,
  PAGE_CSP,
  productBySlug,
  sendNotFound,
  slugParam,
  storePageGuards,
} from './page-http';

/**
 * The hosted checkout of one product (docs/store-pages.md): the product page's buy control leads here in the
 * same tab. The form posts to the Embed API's own checkout service (shared/services/checkout createCheckout,
 * so its rules, fraud checks and creator codes apply here too) and payment start (shared/services/payments
 * startFromCheckoutPage, as the hosted payment page).
 */
export const storeCheckoutRoutes = [
  defineRoute({
    method: 'get',
    path: '/s/{slug}/checkout/{product}',
    interface: 'platform',
    operationId: 'storeCheckoutPage',
    summary: 'Hosted checkout of a product',
    description:
      'The buy control’s target: guest details (inputs with the `autocomplete` tokens given-name, ' +
      'family-name, email, tel-country-code, tel-national), the plan, the product’s custom fields (image and ' +
      'file fields as uploads), quantity, a coupon, and the payment methods as radio inputs whose value is ' +
      'the method id. A sold-out, inactive or deleted product is a 404 page.',
    security: [],
    guards: storePageGuards,
    request: {
      params: Joi.object<{ slug: string; product: string }, true>({
        slug: slugParam,
        product: Joi.string().max(200).required().description('The product’s slug.'),
      }),
      query: Joi.object<{ lang?: string }, true>({ lang: langQuery }),
    },
    responses: {
      ...limited,
      200: htmlResponse('The checkout form.'),
      404: htmlResponse('No such product on sale.'),
    },
    handler: async (ctx, { params }) => {
      const found = await checkoutTarget(ctx, params.slug, params.product);
      if (!found) return;
      const r = contextOf(ctx, found.store, `/checkout/${params.product}`);
      sendHtml(ctx, {
        status: 200,
        html: checkoutView(r.pc, found.product, found.embed, { values: {}, errors: {}, alert: null }),
      });
      ctx.set('Content-Security-Policy', PAGE_CSP);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/s/{slug}/checkout/{product}',
    interface: 'platform',
    operationId: 'storeCheckoutSubmit',
    summary: 'Hosted checkout: pay',
    description:
      'The checkout form (`multipart/form-data`, or urlencoded without files): the Embed guest checkout’s ' +
      'fields (`customer_first_name`, `customer_last_name`, `customer_email`, `customer_country_code`, ' +
      '`customer_phone`, `quantity`, `subscription_plan`, `coupon_code`, `customer_note`, `fields.{index}`, ' +
      'uploads as `field_files.{index}`) and `payment_method`. The checkout is made by the same service and ' +
      'rules as POST /api/embed/guest/checkout, then the payment starts as on the hosted payment page: 303 ' +
      'to the provider’s page (the sandbox’s, in development), whose end shows the order id. A free order ' +
      'goes straight to its confirmation. Refused: the form again with each bad field named (422) or the ' +
      'reason (400, 403).',
    security: [],
    guards: () => [
      ...storePageGuards(),
      rateLimit([{ def: LIMITS.embedPerIpMinute, key: byClientIp }]),
      formBody(),
    ],
    request: {
      params: Joi.object<{ slug: string; product: string }, true>({
        slug: slugParam,
        product: Joi.string().max(200).required().description('The product’s slug.'),
      }),
      query: Joi.object<{ lang?: string }, true>({ lang: langQuery }),
      bodyTypes: ['multipart/form-data', 'application/x-www-form-urlencoded'],
      body: Joi.object().unknown(true).description('The checkout form’s fields (above).'),
    },
    responses: {
      ...limited,
      200: htmlResponse('Manual payment instructions (bank transfer, PayPal).'),
      303: redirectResponse('To the payment page, or to the free order’s confirmation.'),
      400: htmlResponse('Refused (coupon, stock, payment method); the form says why.'),
      403: htmlResponse('Refused by the store’s checkout rules.'),
      404: htmlResponse('No such product on sale.'),
      413: htmlResponse('The body is larger than the checkout accepts.'),
      422: htmlResponse('The form again, each bad field named.'),
    },
    handler: async (ctx) => {
      const params = ctx.params as { slug: string; product: string };
      const found = await checkoutTarget(ctx, params.slug, params.product);
      if (!found) return;
      const { store, product, embed } = found;
      const r = contextOf(ctx, store, `/checkout/${params.product}`);
      const raw = (ctx.request.body ?? {}) as Record<string, unknown>;
      const values = formValues(raw);
      const again = (status: number, form: Omit<CheckoutForm, 'values'>): void => {
        sendHtml(ctx, { status, html: checkoutView(r.pc, product, embed, { values, ...form }) });
        ctx.set('Content-Security-Policy', PAGE_CSP);
      };
      // Each refused field's message in the page's language (field-errors.ts).
      const localized = (key: string, message: string): string =>
        fieldMessage(r.pc.locale, key, message, product.fields, values[key]);
      const { payment_method: method, ...rest } = raw;
      const checked = guestCheckoutBody.validate(
        { ...rest, product_id: product.id },
        { abortEarly: false, convert: true, stripUnknown: true },
      );
      const errors: Record<string, string> = {};
      for (const d of checked.error?.details ?? []) {
        const key = d.path.join('.');
        errors[key] ??= localized(key, d.message.replace(/^"[^"]*" /, ''));
      }
      if (typeof method !== 'string' || !embed.payment_methods.some((m) => m.id === method)) {
        errors.payment_method = localized('payment_method', 'Choose a payment method');
      }
      if (Object.keys(errors).length > 0) return again(422, { errors, alert: null });
      const body = checked.value;
      try {
        // A `?ref=CODE` this browser came with credits that creator (docs/growth.md).
        const creatorCode = await creatorCodeFor(ctx, store, body.creator_code);
        if (creatorCode) body.creator_code = creatorCode;
        const result = await createCheckout(
          requestDeps(ctx),
          store,
          buyerFromGuest(body, r.pc.locale),
          body,
          uploadsOf(ctx),
          { source: 'store_page' },
        );
        // A free order exists already: its page (the hosted payment page) confirms it with the order id.
        if (result.type === 'free_order') {
          return sendHtml(ctx, {
            status: 303,
            location: withLang(`/pay/${result.checkout_url}`, r.pc.locale),
          });
        }
        const action = await startFromCheckoutPage(
          requestDeps(ctx, { buyer: false }),
          result.checkout_url,
          String(method),
        );
        if (action.kind === 'error') return again(action.status, { errors: {}, alert: action.message });
        // The browser that submitted this form is the one that sees the goods on the payment page once paid
        // (shared/services/reveal): bound here, before the payment page's address leaves this answer.
        await bindRevealCookie(ctx, result.checkout_id);
        if (action.kind === 'redirect') {
          return sendHtml(ctx, { status: 303, location: withLang(action.url, r.pc.locale) });
        }
        return sendHtml(
          ctx,
          pageActionView(action, { locale: r.pc.locale, switchHref: ctx.path, path: ctx.path }),
        );
      } catch (err) {
        if (err instanceof ValidationError) {
          const fieldErrors: Record<string, string> = {};
          for (const [k, m] of Object.entries(err.errors)) fieldErrors[k] = localized(k, m[0] ?? '');
          return again(422, { errors: fieldErrors, alert: null });
        }
        if (err instanceof DomainError) {
          const view = toErrorView(err);
          if (!view || view.status >= 500) throw err;
          return again(view.status === 404 ? 400 : view.status, {
            errors: {},
            alert: buyerMessage(view, r.pc.locale),
          });
        }
        throw err;
      }
    },
  }),
];

/** The store and the product a checkout page is for, or a 404 page sent (and undefined). */
async function checkoutTarget(
  ctx: AppContext,
  slug: string,
  productSlug: string,
): Promise<{ store: Store; product: PageProduct; embed: Readonly<ProductView> } | undefined> {
  const store = await storeBySlug(ctx.deps, slug);
  const path = `/checkout/${productSlug}`;
  if (!store) {
    sendNotFound(ctx, undefined, path);
    return undefined;
  }
  const product = productBySlug(await storeCatalogue(ctx.deps, store.id), productSlug);
  const embed = product ? await embedProduct(ctx, store, product.id) : null;
  if (!product || !embed || !embed.stock.is_in_stock) {
    sendNotFound(ctx, store, path);
    return undefined;
  }
  return { store, product, embed };
}

/** The form's text values, to fill the form again after a refusal (files are never echoed). */
function formValues(raw: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === 'string' || typeof value === 'number') out[key] = String(value);
    else if (key === 'fields' && value && typeof value === 'object') {
      for (const [i, v] of Object.entries(value as Record<string, unknown>)) {
        if (typeof v === 'string' || typeof v === 'number') out[`fields.${i}`] = String(v);
      }
    }
  }
  return out;
}

/** Keeps the page language on the payment page the buyer goes to next. */
function withLang(location: string, locale: Locale): string {
  const url = new URL(location, 'http://placeholder.invalid');
  url.searchParams.set('lang', locale);
  return location.startsWith('/') ? `${url.pathname}${url.search}` : url.toString();
}

/** A refusal in the reader's language when the platform has it in Arabic, else as the service said it. */
function buyerMessage(view: NonNullable<ReturnType<typeof toErrorView>>, locale: Locale): string {
  if (locale !== 'ar') return view.message;
  const code = embedErrorCode(view) as TranslatedCode;
  if (!(code in ERROR_MESSAGES_AR)) return view.message;
  return buyerErrorMessage('ar', code, view.message, view.params ?? {});
}
