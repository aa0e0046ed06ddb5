import Joi from 'joi';
import { customerEmail, customerName } from '../../embed/auth/schemas';
import { guestCountryCode, guestPhone } from '../../embed/checkout/schemas';

export { initiateBody, statusParams } from '../../embed/payments/schemas';
export type { InitiateBody, StatusParams } from '../../embed/payments/schemas';

const note = Joi.string().trim().max(500).allow('');

/** A signed-in customer's checkout: the buyer is the token's customer. */
export const customerBody = Joi.object({ customer_note: note });

/** An anonymous visitor's checkout: the buyer's details, as in the Embed guest checkout. */
export const guestBody = Joi.object({
  customer_note: note,
  customer_first_name: customerName,
  customer_last_name: customerName,
  customer_email: customerEmail,
  customer_phone: guestPhone,
  customer_country_code: guestCountryCode,
});

export interface CheckoutBody {
  customer_note?: string;
  customer_first_name?: string;
  customer_last_name?: string;
  customer_email?: string;
  customer_phone?: string;
  customer_country_code?: string;
}
