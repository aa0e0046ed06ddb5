import Joi from 'joi';
import type { AddToCartInput } from '../../../shared/services/cart';
import { MAX_QUANTITY } from '../../../shared/services/checkout';
import { id } from '../schemas';

const quantity = Joi.number().integer().min(1).max(MAX_QUANTITY);

/** Custom field values keyed by field index, as in the Embed checkout; files cannot go in a cart. */
const fields = Joi.object()
  .pattern(/^\d{1,6}$/, Joi.any())
  .unknown(false);

export const addBody = Joi.object({
  product_id: id.required(),
  quantity: quantity.default(1),
  subscription_plan: id,
  fields,
});
export type AddBody = AddToCartInput;

export const itemParams = Joi.object({ itemId: id.required() });
export interface ItemParams {
  itemId: number;
}

export const quantityBody = Joi.object({ quantity: quantity.required() });
export interface QuantityBody {
  quantity: number;
}

export const couponBody = Joi.object({ code: Joi.string().trim().min(1).max(100).required() });
export interface CouponBody {
  code: string;
}
