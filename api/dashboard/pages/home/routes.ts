import Joi from 'joi';
import { homeFigures } from '../../../../shared/services/statistics/home';
import { storeStatistics } from '../../../../shared/services/statistics';
import { defineRoute } from '../../../http/route';
import { htmlResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, signedIn } from '../../session';
import { homeView } from './view';
import { launchChecklist } from '../../../../shared/services/launch/checklist';
import { launchChecklistView } from '../launch/view';
import { guardedAnswers } from '../../forms';

/** The home page (docs/dashboard.md). */

export const dashboardHomeRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant',
    interface: 'platform',
    operationId: 'dashboardHome',
    summary: 'Merchant dashboard: home',
    description:
      'The dashboard of the signed-in merchant’s store: the launch checklist until it is done, today’s and ' +
      'this month’s sales, orders and new ' +
      'customers, a 30-day sales chart. Not signed in: 302 to `/merchant/signin`. Arabic (`?lang=ar`, right ' +
      'to left) or English (`?lang=en`), else the browser’s Accept-Language.',
    guards: signedIn(null),
    request: { query: Joi.object<{ lang?: string }, true>({ lang: Joi.string().valid('ar', 'en') }) },
    responses: { 200: htmlResponse('The home page.'), ...guardedAnswers },
    handler: async (ctx) => {
      const { store, shell } = dashboardOf(ctx);
      const [figures, stats, launch] = await Promise.all([
        homeFigures(ctx.deps.knex, store),
        storeStatistics(ctx.deps.knex, store),
        launchChecklist(ctx.deps.knex, store.id, ctx.deps.config),
      ]);
      const conversion = {
        visitors: stats.traffic.visitors_30_days,
        orders: stats.sales.last_30_days.orders,
      };
      // Without the sandbox (production), the payment step explains Moyasar's test keys.
      const production = !ctx.deps.config.sandboxEnabled;
      const checklist = launchChecklistView(shell, launch, production);
      sendPage(ctx, { status: 200, html: homeView(shell, store.plan, figures, conversion, checklist) });
    },
  }),
];
