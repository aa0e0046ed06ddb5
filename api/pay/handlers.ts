import {
  startFromCheckoutPage,
  checkoutPage,
  paymentPage,
  retryPayment,
} from '../../shared/services/payments';
import type { AppContext } from '../context';
import { sendHtml } from './html';
import { checkoutPageView, pageActionView, paymentPageView } from './views';

/** Path parameters are read as Koa decoded them; the services treat unknown values as not found. */
const param = (ctx: AppContext, name: string): string =>
  String((ctx.params as Record<string, unknown>)[name] ?? '');

function formField(ctx: AppContext, name: string): string {
  const body: unknown = ctx.request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value.trim() : '';
}

/** GET /pay/:checkoutUrl: the checkout's hosted payment page (payment_url). */
export async function showCheckout(ctx: AppContext): Promise<void> {
  const page = await checkoutPage(ctx.deps, param(ctx, 'checkoutUrl'));
  sendHtml(ctx, checkoutPageView(page, ctx.path));
}

/** POST /pay/:checkoutUrl with payment_method: starts the payment, as the Embed API's guest form does. */
export async function chooseMethod(ctx: AppContext): Promise<void> {
  const action = await startFromCheckoutPage(
    ctx.deps,
    param(ctx, 'checkoutUrl'),
    formField(ctx, 'payment_method'),
  );
  sendHtml(ctx, pageActionView(action));
}

/** GET /pay/payments/:paymentRef: forwards to the provider, waits, or shows the outcome. */
export async function showPayment(ctx: AppContext): Promise<void> {
  const ref = param(ctx, 'paymentRef');
  const page = await paymentPage(ctx.deps, ref, { returning: ctx.query.return === '1' });
  sendHtml(ctx, paymentPageView(page, `${ctx.path}/retry`));
}

/** POST /pay/payments/:paymentRef/retry: a new payment with the same method. */
export async function retry(ctx: AppContext): Promise<void> {
  sendHtml(ctx, pageActionView(await retryPayment(ctx.deps, param(ctx, 'paymentRef'))));
}
