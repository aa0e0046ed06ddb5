import Joi from 'joi';
import {
  listSubscriptions,
  SubscriptionFilters,
  subscriptionDetail,
} from '../../../shared/services/merchant/subscriptions';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { id, idParams, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import { merchantOk, merchantRefused, pageOf, SubscriptionDetail, SubscriptionSummary } from '../responses';

const subscriptionsQuery = listQuery<SubscriptionFilters>({
  status: Joi.string().valid('active', 'cancelled', 'expired'),
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
        await listSubscriptions(ctx.deps.knex, ctx.state.store!.id, filters, { page, per_page }),
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
      'Customer, plan, status, current period, and renewals (later orders of the same customer for the ' +
      'same plan).',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('The subscription.', SubscriptionDetail),
      404: merchantRefused('No such subscription in this store.', 'Subscription not found'),
    },
    handler: (ctx, { params }) => subscriptionDetail(ctx.deps.knex, ctx.state.store!.id, params.id),
  }),
];
