import { checkoutCart } from '../../../shared/services/cart';
import { Buyer, buyerFromCustomer } from '../../../shared/services/checkout';
import { checkoutDepsOf } from '../../../shared/services/checkout/factory';
import { initiatePayment, initiationAnswer, paymentStatus } from '../../../shared/services/payments';
import { AppContext, input, respond } from '../../context';
import { ownerOf } from '../cart/owner';
import type { CheckoutBody, InitiateBody, StatusParams } from './schemas';

function buyerOf(ctx: AppContext, body: CheckoutBody): Buyer {
  const customer = ctx.state.customer;
  if (customer) return buyerFromCustomer(customer);
  return {
    customerId: null,
    firstName: body.customer_first_name!,
    lastName: body.customer_last_name!,
    email: body.customer_email!,
    countryCode: body.customer_country_code!,
    phone: body.customer_phone!,
  };
}

/** POST /api/checkout: the cart becomes one checkout; the answer is the Embed checkout's. */
export async function checkout(ctx: AppContext): Promise<void> {
  const { body } = input<CheckoutBody>(ctx);
  const result = await checkoutCart(
    checkoutDepsOf(ctx.deps),
    ctx.state.store!,
    ownerOf(ctx),
    buyerOf(ctx, body),
    { customer_note: body.customer_note || undefined },
  );
  respond(ctx, result);
}

/** POST /api/payment/initiate: as the Embed API's; a signed-in customer pays only their own checkouts. */
export async function initiate(ctx: AppContext): Promise<void> {
  const { body } = input<InitiateBody>(ctx);
  const selector = {
    checkoutUrl: body.checkout_url,
    storeId: ctx.state.store!.id,
    customerId: ctx.state.customer?.id ?? null,
  };
  respond(
    ctx,
    initiationAnswer(await initiatePayment(ctx.deps, selector, body.payment_method), body.checkout_url),
  );
}

/** GET /api/payment/status/{checkoutUrl}: is_paid and order_id, as the Embed API's. */
export async function status(ctx: AppContext): Promise<void> {
  const { params } = input<unknown, unknown, StatusParams>(ctx);
  respond(ctx, await paymentStatus(ctx.deps.knex, params.checkoutUrl));
}
