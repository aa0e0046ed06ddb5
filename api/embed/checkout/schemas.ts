import Joi from 'joi';
import type { CheckoutInput } from '../../../shared/services/checkout';
import { customerEmail, customerName } from '../auth/schemas';
import { productId, quantity } from '../coupons/schemas';

/**
 * Bodies of POST /api/embed/checkout and /api/embed/guest/checkout, JSON or multipart (where every value
 * arrives as text: Joi converts numbers, and '' counts as absent for the optional fields).
 * `notice` is accepted for `customer_note`; when both are sent, `customer_note` wins.
 */

const note = Joi.string().trim().max(500).allow('');

/** Custom field values keyed by field index; an array is read the same way (position = index). */
const fields = Joi.alternatives()
  .try(
    Joi.object()
      .pattern(/^\d{1,6}$/, Joi.any())
      .unknown(false),
    Joi.array()
      .max(1000)
      .custom((values: unknown[]) => Object.fromEntries(values.map((v, i) => [String(i), v]))),
  )
  .messages({ 'alternatives.types': '{{#label}} must be an object keyed by field index' });

const common = {
  product_id: productId.required(),
  quantity: quantity.required(),
  coupon_code: Joi.string().trim().max(100).allow(''),
  customer_note: note,
  notice: note,
  subscription_plan: Joi.number().integer().positive().max(2_147_483_647).empty(''),
  fields,
};

/** Joins `notice` into `customer_note` and drops empty optional strings. */
function normalise<T extends Record<string, unknown>>(value: T): T {
  const out: Record<string, unknown> = { ...value };
  if ((out.customer_note === undefined || out.customer_note === '') && out.notice !== undefined) {
    out.customer_note = out.notice;
  }
  delete out.notice;
  for (const key of ['customer_note', 'coupon_code']) if (out[key] === '') delete out[key];
  return out as T;
}

export const checkoutBody = Joi.object(common).custom(normalise);
export type CheckoutBody = CheckoutInput;

/**
 * A required text field that arrives as a string of at most `maxLength` characters or as a JSON integer,
 * and is stored as `toStored` rewrites it; a value it answers null for fails with `code` and `message`.
 */
function textOrInteger(
  maxLength: number,
  toStored: (text: string) => string | null,
  code: string,
  message: string,
) {
  return Joi.alternatives()
    .try(
      Joi.string().trim().max(maxLength),
      // strict: only a JSON number; a string that failed above is not converted to a number here.
      Joi.number()
        .strict()
        .integer()
        .min(0)
        .custom((v: number) => String(v)),
    )
    .required()
    .custom((v: string, helpers) => toStored(v) ?? helpers.error(code))
    .messages({ 'alternatives.types': '{{#label}} must be a string', [code]: message });
}

/** A phone as digits: spaces, dashes, dots and brackets are dropped; at most 20 characters as sent. */
export const guestPhone = textOrInteger(
  20,
  (v) => {
    const digits = v.replace(/[\s().-]/g, '');
    return /^\d{4,20}$/.test(digits) ? digits : null;
  },
  'phone.digits',
  '{{#label}} must contain digits only',
);

/** A country code as digits without + or 00: "+966", "00966" and "966" are all 966. */
export const guestCountryCode = textOrInteger(
  10,
  (v) => /^(?:\+|00)?(\d{1,4})$/.exec(v)?.[1] ?? null,
  'country.format',
  '{{#label}} must be 1 to 4 digits, optionally after + or 00',
);

export const guestCheckoutBody = Joi.object({
  ...common,
  customer_first_name: customerName,
  customer_last_name: customerName,
  customer_email: customerEmail,
  customer_phone: guestPhone,
  customer_country_code: guestCountryCode,
}).custom(normalise);

export interface GuestCheckoutBody extends CheckoutInput {
  customer_first_name: string;
  customer_last_name: string;
  customer_email: string;
  customer_phone: string;
  customer_country_code: string;
}
