import type { SchemaObject } from '../../openapi/types';
import { bool, int, money, nint, nmoney, nstr, ntime, obj, time } from './scalars';

/** Subscriptions. */
export const SubscriptionSummary = obj({
  id: int,
  status: { type: 'string', enum: ['active', 'past_due', 'cancelled', 'expired'] },
  customer: obj({
    id: nint,
    first_name: nstr,
    last_name: nstr,
    email: nstr,
    country_code: nstr,
    phone: nstr,
  }),
  product: obj({ id: int, name: nstr }),
  plan: obj({ id: int, name: nstr, duration: nstr, price: nmoney }),
  order_id: nint,
  current_period: obj({ start: time, end: ntime }),
  current_period_end: ntime,
  cancel_at_period_end: bool,
  next_plan_id: { ...nint, description: 'A plan change waiting for a renewal (see `next_price`).' },
  price: {
    ...nmoney,
    description:
      'The unit price the subscriber agreed to: what renewals charge (the plan’s price may differ).',
  },
  currency: nstr,
  next_price: {
    ...obj({ price: money, applies_from: ntime, accepted_at: ntime }),
    type: ['object', 'null'],
    description:
      'A new unit price waiting: charged from the first renewal at or after `applies_from` (a rise is ' +
      'announced to the buyer 7 days ahead; a drop waits for nothing). `accepted_at`: when the buyer ' +
      'accepted the announced rise from their account, else null.',
  },
  payment_method: nstr,
  renews_by: {
    type: 'string',
    enum: ['saved_card', 'payment_link', 'none'],
    description: 'How the next period is paid: the saved card, a link sent to the buyer, or not at all.',
  },
  past_due_since: ntime,
  ended_at: ntime,
  cancelled_at: ntime,
  created_at: time,
});

export const SubscriptionDetail: SchemaObject = {
  allOf: [
    SubscriptionSummary,
    obj({
      renewals: {
        type: 'array',
        items: obj({
          id: int,
          order_id: nint,
          period_start: time,
          status: { type: 'string', enum: ['pending', 'charging', 'paid', 'failed', 'link_sent'] },
          attempts: int,
          next_attempt_at: ntime,
          total: nmoney,
          created_at: time,
        }),
      },
    }),
  ],
};
