import { initiatePayment, initiationAnswer, paymentStatus } from '../../../shared/services/payments';
import { AppContext, input, respond } from '../../context';
import type { InitiateBody, StatusParams } from './schemas';

/** POST /api/embed/payment/initiate: the token's customer pays one of their own checkouts. */
export async function initiate(ctx: AppContext): Promise<void> {
  const { body } = input<InitiateBody>(ctx);
  const selector = {
    checkoutUrl: body.checkout_url,
    storeId: ctx.state.store!.id,
    customerId: ctx.state.customer!.id,
  };
  respond(
    ctx,
    initiationAnswer(await initiatePayment(ctx.deps, selector, body.payment_method), body.checkout_url),
  );
}

/** POST /api/embed/guest/payment/initiate */
export async function guestInitiate(ctx: AppContext): Promise<void> {
  const { body } = input<InitiateBody>(ctx);
  const selector = { checkoutUrl: body.checkout_url, storeId: ctx.state.store!.id, customerId: null };
  respond(
    ctx,
    initiationAnswer(await initiatePayment(ctx.deps, selector, body.payment_method), body.checkout_url),
  );
}

/** GET /api/embed/payment/status/{checkoutUrl}: public, polled. */
export async function status(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, StatusParams>(ctx);
  respond(ctx, await paymentStatus(ctx.deps.knex, params.checkoutUrl));
}
