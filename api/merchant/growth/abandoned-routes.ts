import Joi from 'joi';
import { reminderFigures } from '../../../shared/services/growth/abandoned';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { merchantOk, obj } from '../responses';

/** Abandoned-checkout recovery figures (docs/growth.md, "Abandoned checkouts"). */
export const merchantAbandonedRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/abandoned-checkouts',
    interface: 'merchant',
    operationId: 'merchantAbandonedCheckoutFigures',
    summary: 'Abandoned-checkout recovery figures',
    description:
      'Reminders sent, checkouts recovered (the reminded checkout, or the one its link rebuilt, was paid) ' +
      'and the revenue those orders paid; since `since` (ISO 8601) or all time. The delay and coupon are ' +
      'store settings (`settings` in PATCH /shawarma/store).',
    guards: merchantGuards,
    request: {
      query: Joi.object<{ since?: Date }, true>({ since: Joi.date().iso() })
        .unknown(false)
        .messages({ 'object.unknown': '{{#label}} is not a known parameter' }),
    },
    responses: {
      200: merchantOk(
        'The figures.',
        obj({
          reminders_sent: { type: 'integer' },
          checkouts_recovered: { type: 'integer' },
          revenue_recovered: { type: 'string', pattern: '^\\d+(\\.\\d{2,3})?$' },
          currency: { type: 'string' },
        }),
      ),
    },
    handler: (ctx, { query }) => reminderFigures(ctx.deps.knex, ctx.state.store!.id, query.since),
  }),
];
