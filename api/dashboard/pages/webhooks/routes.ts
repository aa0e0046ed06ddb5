import Joi from 'joi';
import { NotFoundError } from '../../../../shared/errors';
import { recentDeliveries, replayDelivery } from '../../../../shared/services/webhooks/replay';
import { sendTestEvent } from '../../../../shared/services/webhooks/test-event';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
} from '../../../../shared/services/webhooks/endpoints';
import { InvalidError } from '../../../../shared/errors';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { createBody as endpointBody, webhookUrlRefusal } from '../../../merchant/webhooks/schemas';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, messagePage, signedIn } from '../../session';
import { webhooksView } from './view';
import { formBody, postAnswers } from '../../forms';

/** The webhooks page: endpoints, test events, deliveries and replays. */

async function webhooksPage(
  ctx: AppContext,
  status: number,
  opts: Parameters<typeof webhooksView>[3],
): Promise<void> {
  const { store, shell } = dashboardOf(ctx);
  const [endpoints, deliveries] = await Promise.all([
    listEndpoints(ctx.deps.knex, store.id, { page: 1, per_page: 100 }),
    recentDeliveries(ctx.deps.knex, store.id),
  ]);
  sendPage(ctx, { status, html: webhooksView(shell, endpoints.items, deliveries, opts) });
}

export const dashboardWebhookRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/webhooks',
    interface: 'platform',
    operationId: 'dashboardWebhooks',
    summary: 'Merchant dashboard: webhooks',
    description: 'Endpoints (add, delete), the last 50 deliveries with their outcome, and "Send again".',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ done?: string; lang?: string }, true>({
        done: Joi.string().valid('deleted', 'replayed', 'tested'),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: {
      200: htmlResponse('The webhooks page.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { query }) => {
      const { shell } = dashboardOf(ctx);
      const notice =
        query.done === 'deleted'
          ? shell.t.endpointDeleted
          : query.done === 'replayed'
            ? shell.t.replayed
            : query.done === 'tested'
              ? shell.t.tested
              : null;
      await webhooksPage(ctx, 200, { secret: null, notice, error: null, url: '', events: [] });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/webhooks',
    interface: 'platform',
    operationId: 'dashboardWebhookCreate',
    summary: 'Merchant dashboard: add a webhook endpoint',
    description:
      'Form fields `url` and `events` (repeated), checked as `POST /shawarma/webhooks` checks them. The signing ' +
      'secret is shown once.',
    guards: signedIn('settings.edit'),
    request: formBody({
      url: Joi.string().allow('').max(4000),
      events: Joi.alternatives(Joi.string().max(60), Joi.array().items(Joi.string().max(60)).max(50)),
    }),
    responses: {
      200: htmlResponse('The webhooks page with the new endpoint and its secret, shown this once.'),
      422: htmlResponse('The form again, saying what is wrong.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell } = dashboardOf(ctx);
      const body = ctx.request.body as { url?: unknown; events?: unknown };
      const url = typeof body.url === 'string' ? body.url.trim() : '';
      const events = (Array.isArray(body.events) ? body.events : body.events ? [body.events] : []).filter(
        (e): e is string => typeof e === 'string',
      );
      const { value, error } = endpointBody.validate({ url, events }, { abortEarly: false });
      if (error) {
        return webhooksPage(ctx, 422, {
          secret: null,
          notice: null,
          error: shell.t.errEndpoint,
          url,
          events,
        });
      }
      // The Merchant API's rule (https only in production), so both ways in accept the same addresses.
      if (webhookUrlRefusal(value.url, ctx.deps.config.nodeEnv)) {
        return webhooksPage(ctx, 422, {
          secret: null,
          notice: null,
          error: shell.t.errEndpointHttps,
          url,
          events,
        });
      }
      let secret: string;
      try {
        secret = (await createEndpoint(ctx.deps, store.id, { url: value.url, events: value.events })).secret;
      } catch (err) {
        if (err instanceof InvalidError) {
          return webhooksPage(ctx, 422, { secret: null, notice: null, error: err.message, url, events });
        }
        throw err;
      }
      await webhooksPage(ctx, 200, { secret, notice: null, error: null, url: '', events: [] });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/webhooks/{endpointId}/delete',
    interface: 'platform',
    operationId: 'dashboardWebhookDelete',
    summary: 'Merchant dashboard: delete a webhook endpoint',
    description: 'The endpoint and its delivery history. 303 to the webhooks page.',
    guards: signedIn('settings.edit'),
    request: {
      params: Joi.object({
        endpointId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ endpointId: number }>,
      ...formBody({}),
    },
    responses: {
      303: redirectResponse('Deleted.'),
      404: htmlResponse('No such endpoint in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      try {
        await deleteEndpoint(ctx.deps.knex, store.id, params.endpointId);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/webhooks?done=deleted' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/webhooks/{endpointId}/test',
    interface: 'platform',
    operationId: 'dashboardWebhookTest',
    summary: 'Merchant dashboard: send a test event to a webhook endpoint',
    description:
      'Form field `type` (an event type). A signed sample of that event, marked `"test": true`, through the ' +
      'normal delivery path, as `POST /shawarma/webhooks/{id}/test` sends it. 303 to the webhooks page.',
    guards: signedIn('settings.edit'),
    request: {
      params: Joi.object({
        endpointId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ endpointId: number }>,
      ...formBody({ type: Joi.string().max(60).required() }),
    },
    responses: {
      303: redirectResponse('Queued.'),
      404: htmlResponse('No such endpoint in this store.'),
      422: htmlResponse('Not an event type.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      const type = String((ctx.request.body as { type?: unknown }).type ?? '');
      try {
        await sendTestEvent(ctx.deps, store.id, params.endpointId, type);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        if (err instanceof InvalidError)
          return sendPage(ctx, messagePage(shell, 422, shell.t.webhooks, err.message));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/webhooks?done=tested' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/webhooks/deliveries/{deliveryId}/replay',
    interface: 'platform',
    operationId: 'dashboardWebhookReplay',
    summary: 'Merchant dashboard: send a webhook delivery again',
    description: 'The same event (same id and payload) to the same endpoint, by a new job. 303 to the page.',
    guards: signedIn('settings.edit'),
    request: {
      params: Joi.object({
        deliveryId: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).required(),
      }) as Joi.ObjectSchema<{ deliveryId: number }>,
      ...formBody({}),
    },
    responses: {
      303: redirectResponse('Queued.'),
      404: htmlResponse('No such delivery in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      try {
        await replayDelivery(ctx.deps, store.id, params.deliveryId);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/webhooks?done=replayed' });
    },
  }),
];
