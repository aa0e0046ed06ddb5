import Joi from 'joi';

/** Phone fields arrive as strings or, from some clients, as JSON numbers: both are read as digits. */
const digitsField = (max: number, pattern: RegExp, rule: string) =>
  Joi.alternatives()
    .try(
      Joi.string().trim().max(max),
      Joi.number()
        .integer()
        .min(0)
        .custom((v: number) => String(v)),
    )
    .required()
    .custom((v: string, helpers) => (pattern.test(v) ? v : helpers.error('digits.format')))
    .messages({ 'alternatives.types': '{{#label}} must be a string', 'digits.format': `{{#label}} ${rule}` });

export const countryCode = digitsField(
  10,
  /^(?:\+|00)?\d{1,4}$/,
  'must be 1 to 4 digits, optionally after + or 00',
);
export const phone = digitsField(20, /^\d[\d\s().-]*$/, 'must contain digits only');
export const sessionToken = Joi.string().trim().max(200).required();

export const startBody = Joi.object({
  product_id: Joi.number().integer().positive().required(),
  country_code: countryCode,
  phone,
});
export interface StartBody {
  product_id: number;
  country_code: string;
  phone: string;
}

export const resendBody = Joi.object({ session_token: sessionToken });
export interface ResendBody {
  session_token: string;
}

export const verifyBody = Joi.object({
  session_token: sessionToken,
  code: Joi.alternatives()
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
    .messages({ 'code.format': '{{#label}} must be exactly 4 digits' }),
});
export interface VerifyBody {
  session_token: string;
  code: string;
}

/** A customer's first or last name, and e-mail address: the same rules wherever a customer gives them. */
export const customerName = Joi.string().trim().min(1).max(100).required();
export const customerEmail = Joi.string()
  .trim()
  .lowercase()
  .max(254)
  .email({ tlds: { allow: false } })
  .required();

export const completeBody = Joi.object({
  session_token: sessionToken,
  firstName: customerName,
  lastName: customerName,
  email: customerEmail,
});
export interface CompleteBody {
  session_token: string;
  firstName: string;
  lastName: string;
  email: string;
}

export const validateBody = Joi.object({
  product_id: Joi.number().integer().positive().required(),
});
export interface ValidateBody {
  product_id: number;
}
