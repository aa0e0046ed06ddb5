import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { SandboxGateway } from '../../shared/providers/sandbox';
import type { AppContext } from '../context';
import { paymentStatusGuards } from '../guards';
import { viewOf } from '../pay/handlers';
import { sendHtml } from '../pay/html';
import { STRINGS } from '../pay/i18n';
import { messageView } from '../pay/views';
import { sandboxPageView } from './views';
import { sandboxWebhookTarget } from './webhook-target';

export { sandboxWebhookTarget };

function outcomeOf(ctx: AppContext): 'paid' | 'failed' | null {
  const body: unknown = ctx.request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>).outcome : undefined;
  return value === 'paid' || value === 'failed' ? value : null;
}

/**
 * The sandbox provider's hosted page (CONTRACT section 7): GET shows Pay and Fail; a POST with
 * outcome=paid|failed records the choice, sends the customer back to the store and then, like a real
 * provider, delivers a signed webhook to the platform's webhook endpoint. Nothing here touches orders.
 */
export function sandboxRouter(deps: Deps): Router {
  const router = new Router({ prefix: '/sandbox' });
  const gateway = new SandboxGateway(deps.knex, deps.appSecret, deps.logger);
  const guards = paymentStatusGuards(deps);

  router.get('/checkout/:sandboxPaymentId', ...guards, async (ctx: AppContext) => {
    const payment = await gateway.find(String(ctx.params.sandboxPaymentId));
    sendHtml(ctx, sandboxPageView(payment, viewOf(ctx)));
  });

  router.post('/checkout/:sandboxPaymentId', ...guards, async (ctx: AppContext) => {
    const view = viewOf(ctx);
    const t = STRINGS[view.locale];
    const outcome = outcomeOf(ctx);
    if (!outcome) return sendHtml(ctx, messageView(view, 422, t.sandboxTitle, t.sandboxBadOutcome));
    const decision = await gateway.decide(String(ctx.params.sandboxPaymentId), outcome);
    if (decision.kind === 'unknown') return sendHtml(ctx, sandboxPageView(null, view));
    if (decision.kind === 'conflict') {
      const word = decision.payment.status === 'paid' ? t.paidWord : t.failedWord;
      return sendHtml(ctx, messageView(view, 409, t.sandboxTitle, t.sandboxConflict(word)));
    }
    const target = sandboxWebhookTarget(ctx);
    // The webhook goes out once the customer's answer is done with (sent, or the browser went away), as a
    // provider's would: never before the redirect, never not at all.
    ctx.res.once('close', () => gateway.deliverInBackground(decision.event, target));
    sendHtml(ctx, { status: 303, location: decision.payment.return_url });
  });

  return router;
}
