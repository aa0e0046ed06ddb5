import Joi from 'joi';
import type { CompleteInput, StartInput } from '../../../shared/services/otp';
import { countryCode, customerName, email, id, opaque, phone } from '../../http/fields';

/** Bodies of the phone sign-in routes, shared by the Embed API and the Storefront API. */

const sessionToken = opaque().required().description('The OTP session, from auth/start.');

export const startBody = Joi.object<Required<StartInput>, true>({
  product_id: id().required().description('Must exist and be active.'),
  country_code: countryCode().required().description('With or without a leading + or 00.'),
  phone: phone().required().description('Number without country code.'),
});

/** Storefront sign-in starts from the store itself, not from a product. */
export const storefrontStartBody = Joi.object<Omit<StartInput, 'product_id'>, true>({
  country_code: countryCode().required().description('With or without a leading + or 00.'),
  phone: phone().required().description('Number without country code.'),
});

export const resendBody = Joi.object<{ session_token: string }, true>({ session_token: sessionToken });

/** The code as a string of 4 digits; some clients send it as a JSON number (0042 arrives as 42). */
const code = Joi.alternatives()
  .try(
    Joi.string().trim(),
    Joi.number()
      .integer()
      .min(0)
      .max(9999)
      .custom((v: number) => String(v).padStart(4, '0')),
  )
  .required()
  .custom((v: string, helpers) => (/^\d{4}$/.test(v) ? v : helpers.error('code.format')))
  .messages({ 'code.format': '{{#label}} must be exactly 4 digits' })
  .description('The 4-digit code.') as unknown as Joi.StringSchema<string>;

export const verifyBody = Joi.object<{ session_token: string; code: string }, true>({
  session_token: sessionToken,
  code,
});

export const completeBody = Joi.object<CompleteInput, true>({
  session_token: sessionToken,
  firstName: customerName().required(),
  lastName: customerName().required(),
  email: email().required(),
});

export const validateBody = Joi.object<{ product_id: number }, true>({ product_id: id().required() });
