import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { SandboxGateway } from '../../shared/providers/sandbox';
import type { AppContext } from '../context';
import { paymentStatusGuards } from '../guards';
import { sendHtml } from '../pay/html';
import { sandboxPageView, sandboxRefusedView } from './views';

/**
 * Where the sandbox delivers webhooks. SANDBOX_WEBHOOK_URL when set; otherwise this web process itself, at
 * the address and port the request arrived on. Posting to PUBLIC_BASE_URL instead would fail wherever that
 * name does not reach the app from inside (tests: http://localhost:3999 with the server on another port;
 * behind a proxy without hairpin routing), while the socket's own address always does.
 */
export function sandboxWebhookTarget(ctx: AppContext): string {
  const configured = ctx.deps.config.payments.sandboxWebhookUrl;
  if (configured) return configured;
  const socket = ctx.req.socket;
  const raw = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = raw.includes(':') ? `[${raw}]` : raw;
  return `http://${host}:${socket.localPort ?? ctx.deps.config.port}/webhooks/sandbox`;
}

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
    sendHtml(ctx, sandboxPageView(payment, ctx.path));
  });

  router.post('/checkout/:sandboxPaymentId', ...guards, async (ctx: AppContext) => {
    const outcome = outcomeOf(ctx);
    if (!outcome) return sendHtml(ctx, sandboxRefusedView(422, 'outcome must be paid or failed'));
    const decision = await gateway.decide(String(ctx.params.sandboxPaymentId), outcome);
    if (decision.kind === 'unknown') return sendHtml(ctx, sandboxPageView(null, ctx.path));
    if (decision.kind === 'conflict') {
      return sendHtml(ctx, sandboxRefusedView(409, `This payment was already ${decision.payment.status}.`));
    }
    const target = sandboxWebhookTarget(ctx);
    // The webhook goes out once the customer's answer is done with (sent, or the browser went away), as a
    // provider's would: never before the redirect, never not at all.
    ctx.res.once('close', () => gateway.deliverInBackground(decision.event, target));
    sendHtml(ctx, { status: 303, location: decision.payment.return_url });
  });

  return router;
}
