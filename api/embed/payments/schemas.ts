import Joi from 'joi';
import { PAYMENT_METHOD_IDS, PaymentMethodId } from '../../../db/models';

export const initiateBody = Joi.object({
  checkout_url: Joi.string().trim().max(200).required(),
  payment_method: Joi.string()
    .valid(...PAYMENT_METHOD_IDS)
    .required()
    .messages({ 'any.only': 'Invalid payment method' }),
});
export interface InitiateBody {
  checkout_url: string;
  payment_method: PaymentMethodId;
}

export const statusParams = Joi.object({ checkoutUrl: Joi.string().max(200).required() });
export interface StatusParams {
  checkoutUrl: string;
}
