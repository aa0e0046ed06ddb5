import Joi from 'joi';
import { WISHLIST_MESSAGES } from '../../../shared/services/wishlist';
import { id } from '../schemas';

export const addBody = Joi.object({
  product_id: id.required().messages({
    'number.base': WISHLIST_MESSAGES.invalidProduct,
    'number.integer': WISHLIST_MESSAGES.invalidProduct,
    'number.positive': WISHLIST_MESSAGES.invalidProduct,
    'number.max': WISHLIST_MESSAGES.invalidProduct,
  }),
});
export interface AddBody {
  product_id: number;
}

export const productParams = Joi.object({ productId: id.required() });
export interface ProductParams {
  productId: number;
}
