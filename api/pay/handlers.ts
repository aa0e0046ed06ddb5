import type { SandboxGateway } from '../../shared/providers/sandbox';
import {
  checkoutPage,
  chooseSandboxOutcome,
  paymentPage,
  retryPayment,
  startFromCheckoutPage,
} from '../../shared/services/payments';
import type { AppContext } from '../context';
import { sandboxWebhookTarget } from '../sandbox/webhook-target';
import { sendHtml } from './html';
import { LOCALES, pickLocale, STRINGS } from './i18n';
import { checkoutPageView, messageView, pageActionView, paymentPageView, View } from './views';

/** Path parameters are read as Koa decoded them; the services treat unknown values as not found. */
export const param = (ctx: AppContext, name: string): string =>
  String((ctx.params as Record<string, unknown>)[name] ?? '');

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

/** GET /pay/:checkoutUrl: the checkout's hosted payment page (payment_url). */
export async function showCheckout(ctx: AppContext): Promise<void> {
  const page = await checkoutPage(ctx.deps, param(ctx, 'checkoutUrl'));
  sendHtml(ctx, checkoutPageView(page, viewOf(ctx)));
}

/** POST /pay/:checkoutUrl with payment_method: starts the payment, as the Embed API's guest form does. */
export async function chooseMethod(ctx: AppContext): Promise<void> {
  const action = await startFromCheckoutPage(
    ctx.deps,
    param(ctx, 'checkoutUrl'),
    formField(ctx, 'payment_method'),
  );
  sendHtml(ctx, pageActionView(action, viewOf(ctx)));
}

/** GET /pay/payments/:paymentRef: the sandbox's Pay/Fail, a forward to the provider, a wait, or the outcome. */
export async function showPayment(ctx: AppContext): Promise<void> {
  const ref = param(ctx, 'paymentRef');
  const page = await paymentPage(ctx.deps, ref, { returning: ctx.query.return === '1' });
  sendHtml(ctx, paymentPageView(page, viewOf(ctx)));
}

/** POST /pay/payments/:paymentRef/retry: a new payment with the same method. */
export async function retry(ctx: AppContext): Promise<void> {
  sendHtml(ctx, pageActionView(await retryPayment(ctx.deps, param(ctx, 'paymentRef')), viewOf(ctx)));
}

/**
 * POST /pay/payments/:paymentRef with outcome=paid|failed: the sandbox's Pay or Fail taken on the
 * `redirect_url` itself (CONTRACT section 7). The choice is the sandbox provider's; the platform hears of it
 * through the provider's signed webhook, sent once this answer is done with, and reconciles as for any
 * provider. The answer is the payment page as after a return from the provider: confirming, then the outcome.
 */
export function sandboxChoiceHandler(gateway: SandboxGateway) {
  return async function chooseOutcome(ctx: AppContext): Promise<void> {
    const view = viewOf(ctx);
    const t = STRINGS[view.locale];
    const ref = param(ctx, 'paymentRef');
    const outcome = formField(ctx, 'outcome');
    if (outcome !== 'paid' && outcome !== 'failed') {
      return sendHtml(ctx, messageView(view, 422, t.sandboxTitle, t.sandboxBadOutcome));
    }
    const choice = await chooseSandboxOutcome(
      { knex: ctx.deps.knex, appSecret: ctx.deps.appSecret, gateway },
      ref,
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
      case 'conflict':
        return sendHtml(
          ctx,
          messageView(
            view,
            409,
            t.sandboxTitle,
            t.sandboxConflict(choice.decided === 'paid' ? t.paidWord : t.failedWord),
          ),
        );
      case 'decided': {
        const target = sandboxWebhookTarget(ctx);
        // As a provider would: the webhook goes out once the customer's answer is done with.
        ctx.res.once('close', () => gateway.deliverInBackground(choice.event, target));
        const page = await paymentPage(ctx.deps, ref, { returning: true });
        return sendHtml(ctx, paymentPageView(page, view));
      }
    }
  };
}
