import Joi from 'joi';
import { applyCoupon, ApplyCouponInput } from '../../../shared/services/coupons';
import { embedOk, schemaRef } from '../../openapi/components';
import { id, quantity } from '../../http/fields';
import { defineRoute } from '../../http/route';
import { embedGuards } from '../../guards';
import { refused } from '../responses';

const applyCouponBody = Joi.object<ApplyCouponInput, true>({
  code: Joi.string().trim().min(1).max(100).required().description('Matched case-insensitively.'),
  product_id: id().required(),
  quantity: quantity().required(),
  subscription_plan: id().description(
    'Optional: a plan of the product whose price the discount is computed on.',
  ),
});

export const embedCouponRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/embed/apply-coupon',
    interface: 'embed',
    operationId: 'embedApplyCoupon',
    summary: 'Check a coupon',
    description:
      'No customer authentication. The discount is computed on the product’s price (the sale price when set, ' +
      'or the price of `subscription_plan` when given) times the quantity, before options and tax; checkout ' +
      'recomputes it on the real subtotal. Checks, in order, each a 400 with its message: unknown code in this ' +
      'store → "Invalid coupon"; inactive, not yet started or expired → "Coupon is not active"; uses reached → ' +
      '"Coupon has reached maximum uses"; limited to other products → "This coupon is not valid for this ' +
      'product"; subtotal below the minimum → "Minimum order value is 20.00" (a decimal amount in the store’s ' +
      'currency, without the code). A `product_id` that is not an active product of this store is a 422 on ' +
      '`product_id`. When `payment_restrictions` is non-empty only those methods may be used with the coupon. ' +
      'A creator’s code that is no coupon of the store is accepted as the checkout takes it (docs/growth.md): ' +
      '`creator: true`, `coupon_id` null, the creator’s buyer discount (0 when none).',
    guards: embedGuards,
    request: { body: applyCouponBody, example: { code: 'SAVE10', product_id: 10, quantity: 1 } },
    responses: {
      200: embedOk('The coupon and the discount it gives.', schemaRef('CouponResult'), {
        success: true,
        data: {
          coupon_id: 7,
          code: 'SAVE10',
          type: 'percentage',
          amount: 10,
          discount_amount: 8,
          payment_restrictions: ['card', 'mada'],
          creator: false,
        },
      }),
      400: refused('The coupon cannot be used (see the description for each message).', 'Invalid coupon'),
    },
    handler: (ctx, { body }) => applyCoupon(ctx.deps.knex, ctx.state.store!, body),
  }),
];
