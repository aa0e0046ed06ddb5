import Joi from 'joi';
import type { OrderStatus } from '../../../db/models';
import { ValidationError } from '../../../shared/errors';
import type { OrderFilters } from '../../../shared/services/orders/read';
import type { PageRequest } from '../../../shared/pagination';
import type { AppMiddleware } from '../../context';
import { guestCheckoutBody } from '../../embed/checkout/schemas';
import { id, listQuery } from '../common';

/** YYYY-MM-DD (a whole UTC day) or an ISO 8601 date-time. */
const calendarDay = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/)
  .custom((v: string, helpers) => {
    const day = new Date(`${v}T00:00:00.000Z`);
    // 2026-13-45 matches the pattern but names no day.
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(v) ? v : helpers.error('any.invalid');
  });
const dateOrDateTime = Joi.alternatives()
  .try(
    calendarDay,
    Joi.string()
      .max(40)
      .custom((v: string, helpers) => {
        // An instant: a date, 'T', a time and a zone (Z or an offset), in a year Postgres stores.
        const at = new Date(v);
        const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/.test(v);
        return ok && !Number.isNaN(at.getTime()) ? at : helpers.error('any.invalid');
      }),
  )
  .messages({ 'alternatives.match': '{{#label}} must be a date (YYYY-MM-DD) or an ISO 8601 date-time' });

function dayOrInstant(value: unknown, endOfDay: boolean): Date {
  if (typeof value === 'string') {
    const start = new Date(`${value}T00:00:00.000Z`);
    return endOfDay ? new Date(start.getTime() + 86_400_000 - 1) : start;
  }
  return value as Date;
}

/** status: one code or a comma list ("2,3"). */
const statusList = Joi.string()
  .pattern(/^[1-6](,[1-6]){0,5}$/)
  .messages({ 'string.pattern.base': '{{#label}} must be a status code 1 to 6, or a comma list of them' });

export type ListQuery = OrderFilters & PageRequest;

export const ordersQuery = listQuery<ListQuery>({
  status: Joi.alternatives()
    .try(Joi.number().integer().min(1).max(6), statusList)
    .description('A status code, or a comma list: `2,3`.'),
  from: dateOrDateTime.description('From this instant, or this UTC day (YYYY-MM-DD).'),
  to: dateOrDateTime.description('Up to this instant, or the end of this UTC day.'),
  email: Joi.string().trim().email().max(254).description('The customer’s e-mail (any case).'),
  phone: Joi.string()
    .trim()
    .pattern(/^\d{4,20}$/)
    .description('The customer’s number, digits, without country code.')
    .messages({ 'string.pattern.base': '{{#label}} must be the number in digits, without country code' }),
  product_id: id().description('Orders with an item of this product.'),
})
  .custom((v: Record<string, unknown>, helpers) => {
    const out: Record<string, unknown> = { ...v };
    if (v.status !== undefined) out.status = String(v.status).split(',').map(Number);
    if (v.from !== undefined) out.from = dayOrInstant(v.from, false);
    if (v.to !== undefined) out.to = dayOrInstant(v.to, true);
    if (out.from && out.to && (out.from as Date) > (out.to as Date)) return helpers.error('range.order');
    return out;
  })
  .messages({ 'range.order': '"from" must not be after "to"' });

/** The guest checkout's fields (docs/operations.md). */
export const createBody = guestCheckoutBody;

export const statusBody = Joi.object<{ status: OrderStatus }, true>({
  status: Joi.number().integer().strict().min(1).max(6).required().description('The new order status code.'),
})
  .unknown(false)
  .messages({ 'number.base': '{{#label}} must be an order status code (integer 1 to 6)' });

export const uploadParams = Joi.object<{ id: number; index: number }, true>({
  id: id().required(),
  index: Joi.number().integer().min(0).max(999).required().description('The custom field index.'),
});

/** Idempotency-Key (Stripe's convention): 1 to 255 visible ASCII characters; lands in ctx.state.idempotencyKey. */
export function idempotencyKey(): AppMiddleware {
  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (key !== '') {
      if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
        throw ValidationError.field(
          'Idempotency-Key',
          'The Idempotency-Key header must be 1 to 255 visible ASCII characters.',
        );
      }
      ctx.state.idempotencyKey = key;
    }
    await next();
  };
}
