import Joi from 'joi';
import {
  checkoutPage,
  paymentPage,
  retryPayment,
  startFromCheckoutPage,
} from '../../shared/services/payments';
import type { AppContext } from '../context';
import { paymentStatusGuards } from '../guards';
import { defineRoute, RouteDefinition } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { sendHtml } from './html';
import { checkoutPageView, pageActionView, paymentPageView } from './views';

/**
 * The platform's hosted payment pages. /pay/{checkout_url} is the `payment_url` of a checkout (choose a
 * method); /pay/payments/{ref} is one payment's page: the `redirect_url` of payment/initiate and the
 * address providers send the customer back to. Public, under the per-IP limit of payment status polling.
 * Path parameters are taken as sent: the services treat unknown values as not found (a 404 page).
 */

export function formField(ctx: AppContext, name: string): string {
  const body: unknown = ctx.request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value.trim() : '';
}

const checkoutUrlParam = Joi.object<{ checkoutUrl: string }, true>({
  checkoutUrl: Joi.string().max(200).required().description('The checkout_url.'),
});
const paymentRefParam = Joi.object<{ paymentRef: string }, true>({
  paymentRef: Joi.string().max(200).required().description('The payment id and its signature, as issued.'),
});

const limited: RouteDefinition['responses'] = {
  429: {
    description: 'Too many requests from this IP (120 per minute, shared with payment status polling).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformError' } } },
  },
};

export const payRoutes = [
  defineRoute({
    method: 'get',
    path: '/pay/payments/{paymentRef}',
    interface: 'platform',
    operationId: 'hostedPaymentPage',
    summary: 'Payment page',
    description:
      'The `redirect_url` of payment/initiate and the address providers send the customer back to ' +
      '(`?return=1`). Forwards (302) to the provider once its session exists; until then a page that reloads ' +
      'itself. Back from the provider it asks the provider at once and reloads until the payment is ' +
      'confirmed. A failed payment shows the reason and a Retry button.',
    guards: paymentStatusGuards,
    request: {
      params: paymentRefParam,
      query: Joi.object<{ return?: string }, true>({
        return: Joi.string().max(10).description('1 when the provider sends the customer back.'),
      }),
    },
    responses: {
      ...limited,
      200: htmlResponse('Waiting, paid or failed.'),
      302: redirectResponse('To the provider’s payment page.'),
      404: htmlResponse('Unknown payment.'),
    },
    handler: async (ctx, { params, query }) => {
      const page = await paymentPage(ctx.deps, params.paymentRef, { returning: query.return === '1' });
      sendHtml(ctx, paymentPageView(page, `${ctx.path}/retry`));
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
      sendHtml(ctx, pageActionView(await retryPayment(ctx.deps, params.paymentRef))),
  }),
  defineRoute({
    method: 'get',
    path: '/pay/{checkoutUrl}',
    interface: 'platform',
    operationId: 'hostedCheckoutPage',
    summary: 'Hosted payment page of a checkout',
    description:
      'The `payment_url` of a checkout: the amount and a button per payment method available for it. ' +
      'Once the checkout has an order it shows the order (paid, or waiting for a manual payment). 404 page ' +
      'for an unknown or expired checkout.',
    guards: paymentStatusGuards,
    request: { params: checkoutUrlParam },
    responses: {
      ...limited,
      200: htmlResponse('The page.'),
      404: htmlResponse('Unknown or expired checkout.'),
    },
    handler: async (ctx, { params }) => {
      const page = await checkoutPage(ctx.deps, params.checkoutUrl);
      sendHtml(ctx, checkoutPageView(page, ctx.path));
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
      422: htmlResponse('Not a payment method id.'),
    },
    handler: async (ctx, { params }) => {
      const action = await startFromCheckoutPage(
        ctx.deps,
        params.checkoutUrl,
        formField(ctx, 'payment_method'),
      );
      sendHtml(ctx, pageActionView(action));
    },
  }),
];
