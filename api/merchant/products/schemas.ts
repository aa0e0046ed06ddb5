import Joi from 'joi';
import {
  codeKey,
  MAX_CODES_PER_REQUEST,
  productKeys,
  type ProductInput,
  type ProductPatch,
} from '../../../shared/services/catalogue/schema';

/**
 * Product bodies: the fixture's product keys (shared/services/catalogue/schema.ts, the one schema the seed
 * uses too), with categories and plans named by id.
 */
export const createBody = Joi.object<ProductInput>(productKeys('create')).required();

export const patchBody = Joi.object<ProductPatch>(productKeys('patch'))
  .min(1)
  .required()
  .messages({ 'object.min': 'name at least one product key to change' });

const codes = Joi.array()
  .items(codeKey())
  .min(1)
  .max(MAX_CODES_PER_REQUEST)
  .messages({
    'array.max': `{{#label}} may hold at most ${MAX_CODES_PER_REQUEST} codes per request`,
  });

export const codesBody = Joi.object<{ codes: string[] }, true>({ codes: codes.required() }).required();

export const withdrawBody = Joi.object<{ codes?: string[]; all?: boolean }, true>({
  codes,
  all: Joi.boolean().strict().valid(true),
})
  .xor('codes', 'all')
  .required()
  .messages({ 'object.missing': 'send `codes` (the keys to withdraw) or `all: true`' });
