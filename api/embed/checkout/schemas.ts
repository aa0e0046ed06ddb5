import Joi from 'joi';
import type { CheckoutInput, GuestDetails } from '../../../shared/services/checkout';
import { countryCodeDigits, customerName, email, id, phoneDigits, quantity } from '../../http/fields';

/**
 * Bodies of POST /api/embed/checkout and /api/embed/guest/checkout, JSON or multipart (where every value
 * arrives as text: Joi converts numbers, and '' counts as absent for the optional fields).
 * `notice` is accepted for `customer_note`; when both are sent, `customer_note` wins.
 */

const note = Joi.string().trim().max(500).allow('');

/**
 * Custom field values keyed by field index; an array is read the same way (position = index), so the
 * value always comes out as an object.
 */
const fields = Joi.alternatives()
  .try(
    Joi.object()
      .pattern(/^\d{1,6}$/, Joi.any())
      .unknown(false),
    Joi.array()
      .max(1000)
      .custom((values: unknown[]) => Object.fromEntries(values.map((v, i) => [String(i), v]))),
  )
  .messages({ 'alternatives.types': '{{#label}} must be an object keyed by field index' })
  .description(
    'Custom field values keyed by the field’s index in the product’s `fields` (an array is read by position). ' +
      'text: string (at most 1000 characters); number: number; date: `YYYY-MM-DD`; datetime: ISO 8601; ' +
      'color: `#rgb` or `#rrggbb`; select: the option’s index, whose price is added to each unit. Image and ' +
      'file fields are not sent here but as `field_files.{index}` parts.',
  ) as unknown as Joi.ObjectSchema<Record<string, unknown>>;

/** What the body carries before `notice` is folded into `customer_note`. */
type CheckoutBody = CheckoutInput & { notice?: string };

const common = {
  product_id: id().required().description('An active product of the embed key’s store.'),
  quantity: quantity().required(),
  coupon_code: Joi.string()
    .trim()
    .max(100)
    .allow('')
    .description('Matched case-insensitively; a creator’s code credits that creator (docs/growth.md).'),
  creator_code: Joi.string()
    .trim()
    .max(100)
    .allow('')
    .description('A creator’s code (case-insensitive): the order credits that creator. Unknown: 422.'),
  customer_note: note,
  notice: note.description('Another name for `customer_note` (which wins).'),
  subscription_plan: id()
    .empty('')
    .description('A plan id of the product; required for subscription products.'),
  fields,
};

/** Joins `notice` into `customer_note` and drops empty optional strings. */
function normalise<T extends Record<string, unknown>>(value: T): T {
  const out: Record<string, unknown> = { ...value };
  if ((out.customer_note === undefined || out.customer_note === '') && out.notice !== undefined) {
    out.customer_note = out.notice;
  }
  delete out.notice;
  for (const key of ['customer_note', 'coupon_code', 'creator_code']) if (out[key] === '') delete out[key];
  return out as T;
}

export const checkoutBody = Joi.object<CheckoutBody, true>(common).custom(normalise);

export const guestCheckoutBody = Joi.object<CheckoutBody & GuestDetails, true>({
  ...common,
  customer_first_name: customerName().required(),
  customer_last_name: customerName().required(),
  customer_email: email().required(),
  customer_phone: phoneDigits()
    .required()
    .description('Kept as digits (spaces, dashes, dots and brackets dropped); 4 to 20 digits.'),
  customer_country_code: countryCodeDigits()
    .required()
    .description('1 to 4 digits, optionally after + or 00.'),
}).custom(normalise);
