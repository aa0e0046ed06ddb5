import Joi from 'joi';
import { requestDeps } from '../request-deps';
import type { Deps } from '../../shared/deps';
import { SandboxGateway, sandboxGatewayFor } from '../../shared/providers/sandbox';
import {
  checkoutPage,
  chooseSandboxOutcome,
  paymentPage,
  retryPayment,
  startFromCheckoutPage,
  type PaymentPage,
} from '../../shared/services/payments';
import {
  revealCookieName,
  revealGoodsByCookie,
  type RevealAnswer,
} from '../../shared/services/reveal/reveal';
import type { AppContext, AppMiddleware } from '../context';
import { paymentStatusGuards } from '../guards';
import { defineRoute, type ResponseDoc } from '../http/route';
import { htmlResponse, redirectResponse, schemaRef } from '../openapi/components';
import { sandboxWebhookTarget } from '../sandbox/webhook-target';
import { sendHtml } from './html';
import { bindRevealCookie } from './reveal-cookie';
import { LOCALES, pickLocale, STRINGS } from './i18n';
import { checkoutPageView, messageView, pageActionView, paymentPageView, View } from './views';

/**
 * The platform's hosted payment pages. /pay/{checkout_url} is the `payment_url` of a checkout (choose a
 * method); /pay/payments/{ref} is one payment's page: the `redirect_url` of payment/initiate and the
 * address providers send the customer back to; for a sandbox payment it is also the sandbox's Pay/Fail page,
 * GET and POST (docs/operations.md). Public, under the per-IP limit of payment status polling. Every page
 * speaks Arabic (right to left) or English: `?lang=`, then the cookie the switch sets, then Accept-Language.
 * Path parameters are taken as sent: the services treat unknown values as not found (a 404 page).
 */

export function formField(ctx: AppContext, name: string): string {
  const body: unknown = ctx.request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value.trim() : '';
}

/** The page's language (query, cookie, Accept-Language), the switch's address and the page's own path. */
export function viewOf(ctx: AppContext): View {
  const locale = pickLocale(ctx);
  const query = new URLSearchParams(ctx.querystring);
  query.set('lang', LOCALES.find((l) => l !== locale) ?? 'en');
  return { locale, switchHref: `${ctx.path}?${query.toString()}`, path: ctx.path };
}

/** The sandbox gateway, built once per app, handed to the Pay/Fail handler through ctx.state. */
function withSandboxGateway(deps: Deps): AppMiddleware[] {
  // Where the sandbox is off (production unless SANDBOX_ENABLED=1), its action does not exist: 404.
  if (!deps.config.sandboxEnabled)
    return [
      ...paymentStatusGuards(deps),
      (ctx) => {
        sendHtml(ctx, paymentPageView({ kind: 'not_found' }, viewOf(ctx)));
      },
    ];
  const gateway = sandboxGatewayFor(deps);
  return [
    ...paymentStatusGuards(deps),
    async (ctx, next) => {
      ctx.state.sandbox = gateway;
      await next();
    },
  ];
}

const langQuery = {
  lang: Joi.string().valid('ar', 'en').description('The page language (the switch); remembered in a cookie.'),
};

const checkoutUrlParam = Joi.object<{ checkoutUrl: string }, true>({
  checkoutUrl: Joi.string().max(200).required().description('The checkout_url.'),
});
const paymentRefParam = Joi.object<{ paymentRef: string }, true>({
  paymentRef: Joi.string().max(200).required().description('The payment id and its signature, as issued.'),
});

const limited: Record<number, ResponseDoc> = {
  429: {
    description: 'Too many requests from this IP (120 per minute, shared with payment status polling).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformError' } } },
  },
};

/**
 * The goods after paying (docs/widget.md): the first browser to open an unpaid checkout's payment page
 * gets a reveal cookie (random, only its hash kept); once paid, that browser's page shows the goods.
 */
async function revealOnPage(ctx: AppContext, page: PaymentPage): Promise<RevealAnswer | null> {
  if (page.kind === 'sandbox' || page.kind === 'waiting' || page.kind === 'forward') {
    await bindRevealCookie(ctx, page.checkoutId);
    return null;
  }
  if (page.kind !== 'paid') return null;
  return revealGoodsByCookie(ctx.deps, page.checkoutId, ctx.cookies.get(revealCookieName(page.checkoutId)));
}

export const payRoutes = [
  defineRoute({
    method: 'get',
    path: '/pay/payments/{paymentRef}',
    interface: 'platform',
    operationId: 'hostedPaymentPage',
    summary: 'Payment page',
    description:
      'The `redirect_url` of payment/initiate and the address providers send the customer back to ' +
      '(`?return=1`). For a sandbox payment it is the sandbox’s page itself: the amount with Pay and Fail ' +
      '(docs/operations.md). For another provider it forwards (302) to the provider once its session exists; ' +
      'until then a page that reloads itself. Back from the provider it asks the provider at once and reloads ' +
      'until the payment is confirmed. A failed payment shows the reason and a Retry button.',
    guards: paymentStatusGuards,
    request: {
      params: paymentRefParam,
      query: Joi.object<{ return?: string; lang?: string }, true>({
        return: Joi.string().max(10).description('1 when the provider sends the customer back.'),
        ...langQuery,
      }),
    },
    responses: {
      ...limited,
      200: htmlResponse('Waiting, paid or failed.'),
      302: redirectResponse('To the provider’s payment page.'),
      404: htmlResponse(
        'Unknown payment, or a sandbox payment where the sandbox is off (production by default).',
      ),
    },
    handler: async (ctx, { params, query }) => {
      const page = await paymentPage(ctx.deps, params.paymentRef, { returning: query.return === '1' });
      sendHtml(ctx, paymentPageView(page, viewOf(ctx), await revealOnPage(ctx, page)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/pay/payments/{paymentRef}',
    interface: 'platform',
    operationId: 'hostedPaymentSandboxDecide',
    summary: 'Sandbox payment: pay or fail',
    description:
      'The sandbox’s Pay/Fail taken on the `redirect_url` itself (docs/operations.md): form field ' +
      '`outcome=paid` or `failed`. The choice is recorded by the sandbox provider, which then delivers its ' +
      'signed webhook to `/webhooks/sandbox`; the answer (200) is the payment page confirming, then showing, ' +
      'the outcome. After the payment was paid, `outcome=disputed` is the card holder’s dispute (a chargeback): ' +
      'the sandbox delivers a signed `payment.disputed` webhook (docs/fraud.md); again, the same event again. ' +
      'A post right after payment/initiate waits (a few seconds at most) for the worker to open ' +
      'the sandbox session. The same choice twice is one decision (one order); the other choice after the ' +
      'first is refused (409).',
    guards: withSandboxGateway,
    request: { params: paymentRefParam },
    responses: {
      ...limited,
      200: htmlResponse('The payment page: confirming, then paid or failed.'),
      404: htmlResponse('Unknown payment, or the sandbox is off (production unless SANDBOX_ENABLED=1).'),
      405: htmlResponse('Not a sandbox payment.'),
      409: htmlResponse('Already decided the other way, or the payment is closed.'),
      422: htmlResponse('outcome is not paid, failed or disputed.'),
      503: {
        description:
          'The sandbox session is still being opened (the page, HTML), or a dependency (Postgres or Redis) ' +
          'cannot be reached (the platform error envelope, JSON); either way try again after `Retry-After`.',
        content: {
          'text/html': { schema: { type: 'string' } },
          'application/json': { schema: schemaRef('PlatformError') },
        },
      },
    },
    handler: async (ctx, { params }) => {
      const view = viewOf(ctx);
      const t = STRINGS[view.locale];
      const outcome = formField(ctx, 'outcome');
      if (outcome !== 'paid' && outcome !== 'failed' && outcome !== 'disputed') {
        return sendHtml(ctx, messageView(view, 422, t.sandboxTitle, t.sandboxBadOutcome));
      }
      const gateway = ctx.state.sandbox as SandboxGateway;
      const choice = await chooseSandboxOutcome(
        {
          knex: ctx.deps.knex,
          appSecret: ctx.deps.appSecret,
          appSecretPrevious: ctx.deps.appSecretPrevious,
          gateway,
        },
        params.paymentRef,
        outcome,
      );
      switch (choice.kind) {
        case 'not_found':
          return sendHtml(ctx, paymentPageView({ kind: 'not_found' }, view));
        case 'not_sandbox':
          ctx.set('Allow', 'GET');
          return sendHtml(ctx, messageView(view, 405, t.sandboxTitle, t.sandboxNotSandbox));
        case 'preparing':
          ctx.set('Retry-After', '2');
          return sendHtml(ctx, messageView(view, 503, t.sandboxTitle, t.sandboxPreparing));
        case 'not_open':
          return sendHtml(ctx, messageView(view, 409, t.sandboxTitle, t.sandboxClosed));
        case 'conflict': {
          // A dispute of a payment that was never paid: there is nothing to dispute.
          if (choice.decided === 'pending' || (outcome === 'disputed' && choice.decided !== 'paid')) {
            return sendHtml(ctx, messageView(view, 409, t.sandboxTitle, t.sandboxClosed));
          }
          const word = choice.decided === 'paid' ? t.paidWord : t.failedWord;
          return sendHtml(ctx, messageView(view, 409, t.sandboxTitle, t.sandboxConflict(word)));
        }
        case 'decided': {
          const target = sandboxWebhookTarget(ctx);
          // As a provider would: the webhook goes out once the customer's answer is done with.
          ctx.res.once('close', () => gateway.deliverInBackground(choice.event, target));
          const page = await paymentPage(ctx.deps, params.paymentRef, { returning: true });
          return sendHtml(ctx, paymentPageView(page, view, await revealOnPage(ctx, page)));
        }
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/pay/payments/{paymentRef}/retry',
    interface: 'platform',
    operationId: 'hostedPaymentRetry',
    summary: 'Retry a failed payment',
    description: 'Starts a new payment of the same checkout with the same method and goes to its page (303).',
    guards: paymentStatusGuards,
    request: { params: paymentRefParam },
    responses: {
      ...limited,
      303: redirectResponse('To the new payment’s page.'),
      400: htmlResponse('Refused (e.g. the order already exists).'),
      404: htmlResponse('Unknown payment or expired checkout.'),
    },
    handler: async (ctx, { params }) =>
      sendHtml(
        ctx,
        pageActionView(
          await retryPayment(requestDeps(ctx, { buyer: false }), params.paymentRef),
          viewOf(ctx),
        ),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/pay/{checkoutUrl}',
    interface: 'platform',
    operationId: 'hostedCheckoutPage',
    summary: 'Hosted payment page of a checkout',
    description:
      'The `payment_url` of a checkout: the amount and one form with a radio per payment method available ' +
      'for it (its localized name and mark) and one Pay button. ' +
      'Once the checkout has an order it shows the order (paid, or waiting for a manual payment). 404 page ' +
      'for an unknown or expired checkout.',
    guards: paymentStatusGuards,
    request: {
      params: checkoutUrlParam,
      query: Joi.object<{ lang?: string }, true>(langQuery),
    },
    responses: {
      ...limited,
      200: htmlResponse('The page.'),
      404: htmlResponse('Unknown or expired checkout.'),
      410: htmlResponse('A renewal’s payment link whose subscription was cancelled: it cannot be paid.'),
    },
    handler: async (ctx, { params }) => {
      const page = await checkoutPage(ctx.deps, params.checkoutUrl);
      sendHtml(ctx, checkoutPageView(page, viewOf(ctx)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/pay/{checkoutUrl}',
    interface: 'platform',
    operationId: 'hostedCheckoutChoose',
    summary: 'Pay with the chosen method',
    description:
      'The page’s form (`application/x-www-form-urlencoded`, field `payment_method`: one of card, mada, ' +
      'stcpay, applepay, paypal, bank, coinbase). Same rules and refusals as guest payment/initiate; a ' +
      'hosted-page method answers 303 to its payment page, PayPal and bank transfer show their instructions.',
    guards: paymentStatusGuards,
    request: { params: checkoutUrlParam },
    responses: {
      ...limited,
      200: htmlResponse('Manual payment instructions.'),
      303: redirectResponse('To the payment page (or the PayPal link).'),
      400: htmlResponse('Refused; the page says why.'),
      404: htmlResponse('Unknown or expired checkout.'),
      410: htmlResponse('A renewal’s payment link whose subscription was cancelled: it cannot be paid.'),
      422: htmlResponse('Not a payment method id.'),
    },
    handler: async (ctx, { params }) => {
      const action = await startFromCheckoutPage(
        requestDeps(ctx, { buyer: false }),
        params.checkoutUrl,
        formField(ctx, 'payment_method'),
      );
      sendHtml(ctx, pageActionView(action, viewOf(ctx)));
    },
  }),
];
