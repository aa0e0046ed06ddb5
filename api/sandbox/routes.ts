import Joi from 'joi';
import { SandboxGateway, sandboxGatewayFor } from '../../shared/providers/sandbox';
import type { Deps } from '../../shared/deps';
import type { AppContext, AppMiddleware } from '../context';
import { paymentStatusGuards } from '../guards';
import { defineRoute } from '../http/route';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { sendHtml } from '../pay/html';
import { STRINGS } from '../pay/i18n';
import { formField, viewOf } from '../pay/routes';
import { messageView } from '../pay/views';
import { sandboxPageView } from './views';
import { sandboxWebhookTarget } from './webhook-target';

export { sandboxWebhookTarget };

/** The gateway is built once per app and handed to the handlers through ctx.state. */
function withGateway(deps: Deps): AppMiddleware[] {
  const gateway = sandboxGatewayFor(deps);
  return [
    ...paymentStatusGuards(deps),
    async (ctx, next) => {
      ctx.state.sandbox = gateway;
      await next();
    },
  ];
}

const gatewayOf = (ctx: AppContext): SandboxGateway => ctx.state.sandbox as SandboxGateway;

const params = Joi.object<{ sandboxPaymentId: string }, true>({
  sandboxPaymentId: Joi.string().max(200).required().description('The sandbox payment id.'),
});

/**
 * The sandbox provider's hosted page (docs/operations.md): GET shows Pay and Fail; a POST with
 * outcome=paid|failed records the choice, sends the customer back to the store and then, like a real
 * provider, delivers a signed webhook to the platform's webhook endpoint. Nothing here touches orders.
 */
export const sandboxRoutes = [
  defineRoute({
    method: 'get',
    path: '/sandbox/checkout/{sandboxPaymentId}',
    interface: 'platform',
    operationId: 'sandboxCheckoutPage',
    summary: 'Sandbox provider: payment page',
    description:
      'The sandbox provider’s hosted page (docs/operations.md): the amount with Pay and Fail buttons. No ' +
      'outside network and no real money.',
    guards: withGateway,
    request: { params },
    responses: { 200: htmlResponse('The page.'), 404: htmlResponse('Unknown sandbox payment.') },
    handler: async (ctx, { params: p }) => {
      const payment = await gatewayOf(ctx).find(p.sandboxPaymentId);
      sendHtml(ctx, sandboxPageView(payment, viewOf(ctx)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/sandbox/checkout/{sandboxPaymentId}',
    interface: 'platform',
    operationId: 'sandboxCheckoutDecide',
    summary: 'Sandbox provider: pay or fail',
    description:
      'The customer’s choice (form field `outcome=paid` or `failed`; `disputed` after paid: the card holder’s ' +
      'dispute, delivered as a signed `payment.disputed` webhook). Answers 303 back to the platform’s ' +
      'payment page, then delivers a signed webhook to `/webhooks/sandbox` (retried with back-off; ' +
      'SANDBOX_WEBHOOK_URL overrides the target, which is otherwise this server at the address the request ' +
      'arrived on). The same choice twice delivers the same event again; the other choice after the first is ' +
      'refused (409).',
    guards: withGateway,
    request: { params },
    responses: {
      303: redirectResponse('Back to the store’s payment page.'),
      404: htmlResponse('Unknown sandbox payment.'),
      409: htmlResponse('Already decided the other way.'),
      422: htmlResponse('outcome is not paid, failed or disputed.'),
    },
    handler: async (ctx, { params: p }) => {
      const view = viewOf(ctx);
      const t = STRINGS[view.locale];
      const outcome = formField(ctx, 'outcome');
      if (outcome !== 'paid' && outcome !== 'failed' && outcome !== 'disputed') {
        return sendHtml(ctx, messageView(view, 422, t.sandboxTitle, t.sandboxBadOutcome));
      }
      const gateway = gatewayOf(ctx);
      const decision =
        outcome === 'disputed'
          ? await gateway.dispute(p.sandboxPaymentId)
          : await gateway.decide(p.sandboxPaymentId, outcome);
      if (decision.kind === 'unknown') return sendHtml(ctx, sandboxPageView(null, view));
      if (decision.kind === 'conflict' && outcome === 'disputed') {
        return sendHtml(ctx, messageView(view, 409, t.sandboxTitle, t.sandboxClosed));
      }
      if (decision.kind === 'conflict') {
        const word = decision.payment.status === 'paid' ? t.paidWord : t.failedWord;
        return sendHtml(ctx, messageView(view, 409, t.sandboxTitle, t.sandboxConflict(word)));
      }
      const target = sandboxWebhookTarget(ctx);
      // The webhook goes out once the customer's answer is done with (sent, or the browser went away), as a
      // provider's would: never before the redirect, never not at all.
      ctx.res.once('close', () => gateway.deliverInBackground(decision.event, target));
      sendHtml(ctx, { status: 303, location: decision.payment.return_url });
    },
  }),
];
