import Joi from 'joi';
import { MAX_QUANTITY } from '../../../shared/services/checkout';

export const productId = Joi.number().integer().positive().max(2_147_483_647);
export const quantity = Joi.number().integer().min(1).max(MAX_QUANTITY);

export const applyCouponBody = Joi.object({
  code: Joi.string().trim().min(1).max(100).required(),
  product_id: productId.required(),
  quantity: quantity.required(),
  subscription_plan: Joi.number().integer().positive().max(2_147_483_647),
});
export interface ApplyCouponBody {
  code: string;
  product_id: number;
  quantity: number;
  subscription_plan?: number;
}
