import { listCustomers } from '../../../../shared/services/statistics/home';
import { defineRoute } from '../../../http/route';
import { htmlResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, signedIn } from '../../session';
import { customersView } from './view';
import { guardedAnswers, pageQuery } from '../../forms';

/** The customers page. */

export const dashboardCustomerRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/customers',
    interface: 'platform',
    operationId: 'dashboardCustomers',
    summary: 'Merchant dashboard: customers',
    description: 'Newest first, 20 a page, with each customer’s order count and paid total.',
    guards: signedIn('customers.view'),
    request: { query: pageQuery },
    responses: { 200: htmlResponse('The customers list.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const list = await listCustomers(ctx.deps.knex, store.id, query.page);
      sendPage(ctx, { status: 200, html: customersView(shell, list, query.page, store.currency) });
    },
  }),
];
