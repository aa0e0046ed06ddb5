import Joi from 'joi';
import { parseMoney } from '../../../shared/money';
import type { RefundInput } from '../../../shared/services/refunds';
import type { PageRequest } from '../../../shared/services/merchant/pagination';
import { listQuery } from '../common';

/** The body of POST /shawarma/orders/{id}/refunds, validated (`amount` in minor units). */
export interface RefundBody {
  amount?: number;
  reason?: string | null;
  note?: string | null;
  withdraw_goods?: boolean;
}

export function refundInput(body: RefundBody, requestKey: string | undefined): RefundInput {
  return {
    amountMinor: body.amount,
    reason: body.reason || null,
    note: body.note || null,
    withdrawGoods: body.withdraw_goods,
    requestKey: requestKey ?? null,
  };
}

const amount = Joi.string()
  .trim()
  .max(16)
  .custom((value: string, helpers) => {
    const minor = parseMoney(value);
    if (minor === null) return helpers.error('money.format');
    if (minor <= 0) return helpers.error('money.positive');
    return minor;
  })
  .messages({
    'money.format': '{{#label}} must be a decimal string with at most two decimals, e.g. "10.50"',
    'money.positive': '{{#label}} must be more than 0.00',
  })
  .description(
    'How much to refund, a decimal string in the order’s currency ("10.50"). Omitted: what is left of ' +
      'the payment (a full refund).',
  );

export const refundBody = Joi.object({
  amount,
  reason: Joi.string()
    .trim()
    .max(500)
    .allow(null, '')
    .description('Why, for your records (kept on the refund and in its webhook events).'),
  note: Joi.string()
    .trim()
    .max(1000)
    .allow(null, '')
    .description('Your note; a manual refund without one gets the instructions for its payment method.'),
  withdraw_goods: Joi.boolean()
    .strict()
    .description(
      'Take the goods back (the order becomes Refunded: licenses revoked, subscriptions cancelled, FiveM ' +
        'commands withdrawn, undelivered keys and stock returned). Default: true for a refund of ' +
        'everything that is left, false for a partial one.',
    ),
}).unknown(false) as unknown as Joi.ObjectSchema<RefundBody>;

export const refundsQuery = listQuery<Record<string, never>>({});
export type RefundsQuery = PageRequest;
