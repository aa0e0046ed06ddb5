import Joi from 'joi';
import { ValidationError } from '../../../shared/errors';
import { parseDecimal, parseMoney, precisionMessage } from '../../../shared/money';
import { MAX_EXPONENT } from '../../../shared/currency';
import type { RefundInput } from '../../../shared/services/refunds';
import type { PageRequest } from '../../../shared/pagination';
import { listQuery } from '../common';

/** The body of POST /shawarma/orders/{id}/refunds, validated (`amount` still the decimal string sent). */
export interface RefundBody {
  amount?: string;
  reason?: string | null;
  note?: string | null;
  withdraw_goods?: boolean;
}

/**
 * The refund as the service takes it, `amount` read in the store's currency (an order is always in its
 * store's currency, which cannot change once it has orders): "10" is ¥10 in JPY, "1.250" is 1.250 KWD, and
 * more decimals than the currency has (ISO 4217) is a 422 naming `amount`, never a scaled amount.
 */
export function refundInput(body: RefundBody, requestKey: string | undefined, currency: string): RefundInput {
  let amountMinor: number | undefined;
  if (body.amount !== undefined) {
    const minor = parseMoney(body.amount, currency);
    if (minor === null) throw ValidationError.field('amount', precisionMessage(currency));
    amountMinor = minor;
  }
  return {
    amountMinor,
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
    // Any currency's form here; the store's currency decides its decimals in refundInput.
    const minor = parseDecimal(value, MAX_EXPONENT);
    if (minor === null) return helpers.error('money.format');
    if (minor <= 0) return helpers.error('money.positive');
    return value;
  })
  .messages({
    'money.format': '{{#label}} must be a decimal string with at most the currency’s decimals, e.g. "10.50"',
    'money.positive': '{{#label}} must be more than 0',
  })
  .description(
    'How much to refund, a decimal string in the order’s currency with at most its decimals (ISO 4217: ' +
      '"10.50" SAR, "1.250" KWD, "10" JPY); more decimals is a 422 naming `amount`. Omitted: what is ' +
      'left of the payment (a full refund).',
  );

export const refundBody = Joi.object<RefundBody, true>({
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
}).unknown(false);

export const refundsQuery = listQuery<Record<string, never>>({});
export type RefundsQuery = PageRequest;
