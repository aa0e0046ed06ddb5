import Joi from 'joi';
import { PAYMENT_METHOD_IDS } from '../../db/models';
import { COUNTRY_CODE } from '../../shared/phone';
import { MAX_QUANTITY } from '../../shared/services/checkout';

/**
 * Field schemas every interface shares, written once. Ranges are those Postgres can store: an id is a
 * positive 32-bit integer, so 2^31 is refused as invalid input rather than reaching the database.
 */

export const MAX_INT = 2_147_483_647;

/** A row id (product, plan, order, ...): a positive integer Postgres's `integer` holds. */
export const id = () => Joi.number().integer().positive().max(MAX_INT);

export const quantity = () => Joi.number().integer().min(1).max(MAX_QUANTITY);

/**
 * A text field that some clients send as a JSON integer (phones, country codes): a string of at most
 * `maxLength` characters, or a JSON number (strictly: a string that failed is not re-read as one), stored
 * as `toStored` rewrites it; a value it answers null for fails with `message`.
 */
export function textOrInteger(
  maxLength: number,
  toStored: (text: string) => string | null,
  message: string,
): Joi.StringSchema<string> {
  const schema = Joi.alternatives()
    .try(
      Joi.string().trim().max(maxLength),
      Joi.number()
        .strict()
        .integer()
        .min(0)
        .custom((v: number) => String(v)),
    )
    .custom((v: string, helpers) => toStored(v) ?? helpers.error('text.format'))
    .messages({
      'alternatives.types': '{{#label}} must be a string',
      'text.format': `{{#label}} ${message}`,
    });
  // Whichever branch matched, the value comes out as a string: that is its type in a typed object schema.
  return schema as unknown as Joi.StringSchema<string>;
}

/** A country calling code, "+966", "00966" or "966", kept as sent (the phone service normalises it). */
export const countryCode = () =>
  textOrInteger(
    10,
    (v) => (COUNTRY_CODE.test(v) ? v : null),
    'must be 1 to 4 digits, optionally after + or 00',
  );

/** A country calling code stored as digits without + or 00. */
export const countryCodeDigits = () =>
  textOrInteger(
    10,
    (v) => COUNTRY_CODE.exec(v)?.[1] ?? null,
    'must be 1 to 4 digits, optionally after + or 00',
  );

/** A national number as sent (spaces, dots, dashes and brackets allowed). */
export const phone = () =>
  textOrInteger(20, (v) => (/^\d[\d\s().-]*$/.test(v) ? v : null), 'must contain digits only');

/** A national number stored as digits only. */
export const phoneDigits = () =>
  textOrInteger(
    20,
    (v) => {
      const digits = v.replace(/[\s().-]/g, '');
      return /^\d{4,20}$/.test(digits) ? digits : null;
    },
    'must contain digits only',
  );

/** A customer's first or last name (spec: max 100). */
export const customerName = () => Joi.string().trim().min(1).max(100);

export const email = () =>
  Joi.string()
    .trim()
    .lowercase()
    .max(254)
    .email({ tlds: { allow: false } });

/** An opaque token or secret a client received from us (OTP session, checkout_url, ...). */
export const opaque = (max = 200) => Joi.string().trim().max(max);

export const paymentMethod = () =>
  Joi.string()
    .valid(...PAYMENT_METHOD_IDS)
    .messages({ 'any.only': 'Invalid payment method' });

/** Pagination of lists: `page` from 1, `per_page` up to 100 (default 15). */
export const pagination = {
  page: Joi.number().integer().min(1).max(100_000).default(1),
  per_page: Joi.number().integer().min(1).max(100).default(15),
};
