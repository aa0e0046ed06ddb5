import Joi from 'joi';
import { percent } from '../../../shared/services/catalogue/schema';

/** A percentage as a JSON number (20, 12.5) or a decimal string ("20", "12.50"), 0 to 100, two decimals. */
export function percentValue(what: string, opts: { nullable?: boolean } = {}): Joi.AlternativesSchema {
  return Joi.alternatives()
    .try(
      ...(opts.nullable ? [Joi.valid(null)] : []),
      Joi.number()
        .strict()
        .min(0)
        .max(100)
        .custom((v: number, helpers) =>
          Math.round(v * 100) === v * 100 ? String(v) : helpers.error('number.precision', { limit: 2 }),
        ),
      percent(what),
    )
    .messages({ 'alternatives.match': `{{#label}} must be a percentage between 0 and 100 for ${what}` });
}
