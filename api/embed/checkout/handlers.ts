import { buyerFromCustomer, createCheckout } from '../../../shared/services/checkout';
import { checkoutDepsOf } from '../../../shared/services/checkout/factory';
import { AppContext, input, respond } from '../../context';
import { uploadsOf } from './multipart';
import type { CheckoutBody, GuestCheckoutBody } from './schemas';

/** The customer comes from the bearer token (customerAuth ran before). */
export async function checkout(ctx: AppContext): Promise<void> {
  const { body } = input<CheckoutBody>(ctx);
  const buyer = buyerFromCustomer(ctx.state.customer!);
  respond(ctx, await createCheckout(checkoutDepsOf(ctx.deps), ctx.state.store!, buyer, body, uploadsOf(ctx)));
}

export async function guestCheckout(ctx: AppContext): Promise<void> {
  const { body } = input<GuestCheckoutBody>(ctx);
  const buyer = {
    customerId: null,
    firstName: body.customer_first_name,
    lastName: body.customer_last_name,
    email: body.customer_email,
    countryCode: body.customer_country_code,
    phone: body.customer_phone,
  };
  respond(ctx, await createCheckout(checkoutDepsOf(ctx.deps), ctx.state.store!, buyer, body, uploadsOf(ctx)));
}
