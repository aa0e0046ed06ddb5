import Joi from 'joi';
import { cancelSubscription, changeSubscriptionPlan } from '../../../shared/services/subscriptions/cancel';
import {
  listSubscriptions,
  SubscriptionFilters,
  subscriptionDetail,
} from '../../../shared/services/subscriptions/read';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { id, idParams, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import { merchantOk, merchantRefused, pageOf, SubscriptionDetail, SubscriptionSummary } from '../responses';

const subscriptionsQuery = listQuery<SubscriptionFilters>({
  status: Joi.string().valid('active', 'past_due', 'cancelled', 'expired'),
  product_id: id(),
  customer_id: id(),
});

export const merchantSubscriptionRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/subscriptions',
    interface: 'merchant',
    operationId: 'merchantListSubscriptions',
    summary: 'List subscriptions (paginated)',
    description: `Newest first; filters \`status\`, \`product_id\`, \`customer_id\`. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { query: subscriptionsQuery },
    responses: { 200: merchantOk('One page of subscriptions.', pageOf(SubscriptionSummary)) },
    handler: async (ctx, { query }) => {
      const { page, per_page, ...filters } = query;
      return pageBody(
        await ctx.deps.readKnex.run(ctx.state.store!.id, (knex) =>
          listSubscriptions(knex, ctx.state.store!.id, filters, { page, per_page }),
        ),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/subscriptions/{id}',
    interface: 'merchant',
    operationId: 'merchantGetSubscription',
    summary: 'Subscription details',
    description:
      'Customer, plan, status (`active`, `past_due`, `cancelled`, `expired`), current period, how the ' +
      'next period is paid, and its renewals (one per period: the renewal order, attempts, next try).',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('The subscription.', SubscriptionDetail),
      404: merchantRefused('not_found', 'No such subscription in this store.', 'Subscription not found'),
    },
    handler: (ctx, { params }) => subscriptionDetail(ctx.deps.knex, ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/subscriptions/{id}/cancel',
    interface: 'merchant',
    operationId: 'merchantCancelSubscription',
    summary: 'Cancel a subscription',
    description:
      'The subscription renews no more. Body optional: `{"cancel_at_period_end": true}` keeps it `active` ' +
      'until `current_period_end`, then `cancelled`; without it (or `false`) it is `cancelled` now, and ' +
      'what the current period granted runs out at its end. A renewal run afterwards creates no order. ' +
      'Cancelling a cancelled or expired subscription changes nothing. Answers the subscription.',
    guards: merchantGuards,
    request: {
      params: idParams,
      body: Joi.object<{ cancel_at_period_end: boolean }, true>({
        cancel_at_period_end: Joi.boolean()
          .default(false)
          .description('Keep it until the current period ends (true), or end it now (false).'),
      }).default({ cancel_at_period_end: false }),
      example: { cancel_at_period_end: true },
    },
    responses: {
      200: merchantOk('The subscription after the change.', SubscriptionDetail),
      404: merchantRefused('not_found', 'No such subscription in this store.', 'Subscription not found'),
    },
    handler: async (ctx, { params, body }) => {
      const storeId = ctx.state.store!.id;
      await cancelSubscription(ctx.deps, storeId, params.id, {
        atPeriodEnd: body?.cancel_at_period_end === true,
      });
      return subscriptionDetail(ctx.deps.knex, storeId, params.id);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/subscriptions/{id}/plan',
    interface: 'merchant',
    operationId: 'merchantChangeSubscriptionPlan',
    summary: 'Change a subscription’s plan from the next period',
    description:
      'Body `{"plan_id"}`: another monthly, quarterly or yearly plan of the same product. The current ' +
      'period is left as paid; the next renewal charges the new plan and runs for its duration ' +
      '(`next_plan_id` shows the waiting change). The current plan again withdraws the change.',
    guards: merchantGuards,
    request: {
      params: idParams,
      body: Joi.object<{ plan_id: number }, true>({ plan_id: id().required() }),
      example: { plan_id: 12 },
    },
    responses: {
      200: merchantOk('The subscription after the change.', SubscriptionDetail),
      400: merchantRefused('invalid_request', 'The subscription has ended.', 'The subscription has ended'),
      404: merchantRefused('not_found', 'No such subscription in this store.', 'Subscription not found'),
    },
    handler: async (ctx, { params, body }) => {
      const storeId = ctx.state.store!.id;
      await changeSubscriptionPlan(ctx.deps, storeId, params.id, body.plan_id);
      return subscriptionDetail(ctx.deps.knex, storeId, params.id);
    },
  }),
];
