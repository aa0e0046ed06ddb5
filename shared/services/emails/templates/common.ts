import Joi from 'joi';
import type { BuyerLocale } from '../../../i18n/buyer-messages';
import type { Brand, Rendered } from './layout';

/** One template: the data it takes (validated when the e-mail is asked for) and its rendering. */
export interface EmailTemplate<D> {
  readonly schema: Joi.ObjectSchema<D>;
  render(locale: BuyerLocale, brand: Brand, data: D): Rendered;
}

/** A link the buyer follows: http(s) only. */
export const link = () =>
  Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .max(2000);
/** An amount as the API writes it: a decimal string. */
export const amount = () =>
  Joi.string()
    .pattern(/^-?\d{1,15}(\.\d{1,3})?$/)
    .messages({ 'string.pattern.base': '{{#label}} must be a decimal string' });
export const currency = () => Joi.string().pattern(/^[A-Z]{3}$/);
export const shortText = (max = 300) => Joi.string().trim().min(1).max(max);

/** A date as the buyer reads it: the day in UTC, with Latin digits in both languages (api/dashboard/i18n.ts). */
export function day(iso: string): string {
  return new Date(iso).toISOString().slice(0, 10);
}

export function money(value: string, code: string, locale: BuyerLocale): string {
  return locale === 'ar' ? `${value} ${code}` : `${code} ${value}`;
}
