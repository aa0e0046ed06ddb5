import Joi from 'joi';
import { defineRoute } from '../../../http/route';
import { redirectResponse } from '../../../openapi/components';
import { guardedAnswers, idParam } from '../../forms';
import { sendPage } from '../../layout';
import { signedIn } from '../../session';

/**
 * The addresses the order page's forms post to (refund, status), opened with GET: a reload of the page a
 * form answered, or the address typed or bookmarked. They go to the order's page (303), never to a raw
 * 404 (docs/dashboard.md, "Pages").
 */
const reload = (suffix: 'refund' | 'status', operationId: string) =>
  defineRoute({
    method: 'get',
    path: `/merchant/orders/{orderId}/${suffix}`,
    interface: 'platform',
    operationId,
    summary: `Merchant dashboard: the order’s ${suffix} address opened again`,
    description: 'A reload of the form’s answer: 303 to the order’s page.',
    guards: signedIn(null),
    request: {
      params: idParam('orderId') as Joi.ObjectSchema<{ orderId: number }>,
      query: Joi.object({ lang: Joi.string().valid('ar', 'en') }),
    },
    responses: { 303: redirectResponse('To the order’s page.'), ...guardedAnswers },
    handler: (ctx, { params }) =>
      sendPage(ctx, { status: 303, location: `/merchant/orders/${params.orderId}` }),
  });

export const dashboardOrderReloadRoutes = [
  reload('refund', 'dashboardOrderRefundReload'),
  reload('status', 'dashboardOrderStatusReload'),
];
