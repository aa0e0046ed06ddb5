import { storeStatistics } from '../../../shared/services/merchant/statistics';
import { storeInfo } from '../../../shared/services/merchant/store';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import { noQuery } from '../common';
import { merchantOk, Statistics, StoreInfo } from '../responses';

export const merchantStoreRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/store',
    interface: 'merchant',
    operationId: 'merchantGetStore',
    summary: 'Store information',
    description:
      'Name, currency, domains, plan, the payment methods configured (method, provider, active; never ' +
      'credentials) and the tax setting (`mode` none, inclusive or exclusive; `rate` a percentage string).',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The store.', StoreInfo) },
    handler: (ctx) => storeInfo(ctx.deps.knex, ctx.state.store!),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/store/statics',
    interface: 'merchant',
    operationId: 'merchantGetStatistics',
    summary: 'Store statistics',
    description:
      'Sales (paid orders that stand: In progress and Completed) today (UTC day), in the last 7 and 30 days ' +
      'and all time, as decimal strings with order counts; orders by status code; the five products with ' +
      'most units sold; new customers; and, from the analytics events, distinct visitors and page views per ' +
      'UTC day of the last 30 days. Built for stores with 100,000 orders and more (an index-only scan).',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The statistics.', Statistics) },
    handler: (ctx) => storeStatistics(ctx.deps.knex, ctx.state.store!),
  }),
];
