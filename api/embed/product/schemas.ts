import Joi from 'joi';

/** Any text is accepted here: an id that cannot name a product answers 404 like an unknown one. */
export const productParams = Joi.object({ productId: Joi.string().required() });
export interface ProductParams {
  productId: string;
}
