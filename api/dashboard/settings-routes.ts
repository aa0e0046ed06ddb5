import Joi from 'joi';
import { NotFoundError } from '../../shared/errors';
import {
  issueTokenFor,
  listMerchantTokens,
  merchantTokenName,
  revokeTokenOf,
  TokenScope,
} from '../../shared/services/merchant/tokens';
import { recentDeliveries, replayDelivery } from '../../shared/services/dashboard/webhooks';
import { sendTestEvent } from '../../shared/services/merchant/webhooks/test-event';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
} from '../../shared/services/merchant/webhooks/endpoints';
import { InvalidError, ValidationError } from '../../shared/errors';
import { PAYMENT_METHOD_IDS } from '../../db/models';
import { paymentMethodsSchema } from '../../shared/services/catalogue/store-schema';
import { storeSettings, updateStoreSettings } from '../../shared/services/merchant/store-settings';
import type { AppContext } from '../context';
import { defineRoute } from '../http/route';
import { createBody as endpointBody, webhookUrlRefusal } from '../merchant/webhooks/schemas';
import { htmlResponse, redirectResponse } from '../openapi/components';
import { sendPage } from './layout';
import { dashboardOf, formField, messagePage, signedIn } from './session';
import {
  confirmRevokeView,
  fivemServersView,
  paymentsView,
  tokensView,
  webhooksView,
} from './settings-views';
import { createFivemServer, listFivemServers, revokeFivemServers } from '../../shared/services/fivem/servers';
import { dashboardActor } from './store-routes';

/**
 * Settings pages beyond the store's details: Merchant API tokens, through the Merchant API's own token
 * service (the token shown once, only its hash kept, every change in the audit log). Owners and managers.
 */

const formBody = (fields: Record<string, Joi.Schema>) => ({
  bodyTypes: ['application/x-www-form-urlencoded' as const],
  body: Joi.object({ _csrf: Joi.string().max(200), ...fields }).unknown(true),
});
const postAnswers = {
  403: htmlResponse('Not allowed for this role, a missing or wrong form token, or a form from another site.'),
};

export const dashboardSettingsRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/tokens',
    interface: 'platform',
    operationId: 'dashboardTokens',
    summary: 'Merchant dashboard: API tokens',
    description:
      'The store’s Merchant API tokens (name, scope, last four characters, last use) and the create form.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ revoked?: string; lang?: string }, true>({
        revoked: Joi.string().max(2),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: {
      200: htmlResponse('The tokens page.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const tokens = await listMerchantTokens(ctx.deps.knex, store.id);
      sendPage(ctx, {
        status: 200,
        html: tokensView(shell, tokens, {
          created: null,
          notice: query.revoked === '1' ? shell.t.tokenRevoked : null,
          error: null,
          name: '',
        }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/tokens',
    interface: 'platform',
    operationId: 'dashboardTokenCreate',
    summary: 'Merchant dashboard: create an API token',
    description:
      'Form fields `name` (1–100 characters), `scope` (`read` or `write`). The token is shown once.',
    guards: signedIn('settings.edit'),
    request: formBody({
      name: Joi.string().allow('').max(400),
      scope: Joi.string().allow('').max(10),
    }),
    responses: {
      200: htmlResponse('The tokens page with the new token, shown this once.'),
      422: htmlResponse('The form again, naming the bad field.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const name = formField(ctx, 'name').trim();
      const scope: TokenScope = formField(ctx, 'scope') === 'write' ? 'write' : 'read';
      if (!name || name.length > 100) {
        const tokens = await listMerchantTokens(ctx.deps.knex, store.id);
        return sendPage(ctx, {
          status: 422,
          html: tokensView(shell, tokens, { created: null, notice: null, error: shell.t.errTokenName, name }),
        });
      }
      const created = await issueTokenFor(ctx.deps.knex, dashboardActor(store.id, s.user), { name, scope });
      const tokens = await listMerchantTokens(ctx.deps.knex, store.id);
      sendPage(ctx, {
        status: 200,
        html: tokensView(shell, tokens, { created: created.token, notice: null, error: null, name: '' }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/tokens/{tokenId}/revoke',
    interface: 'platform',
    operationId: 'dashboardTokenRevoke',
    summary: 'Merchant dashboard: revoke an API token',
    description:
      'First answers a confirmation page; the confirmed form adds `confirm=1`. 303 to the tokens page.',
    guards: signedIn('settings.edit'),
    request: {
      params: Joi.object({
        tokenId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ tokenId: number }>,
      ...formBody({ confirm: Joi.string().max(2) }),
    },
    responses: {
      200: htmlResponse('The confirmation page.'),
      303: redirectResponse('Revoked: to the tokens page.'),
      404: htmlResponse('No such token in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const name = await merchantTokenName(ctx.deps.knex, store.id, params.tokenId);
      if (name === null)
        return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
      if (formField(ctx, 'confirm') !== '1') {
        return sendPage(ctx, {
          status: 200,
          html: confirmRevokeView(shell, params.tokenId, name),
        });
      }
      try {
        await revokeTokenOf(ctx.deps.knex, dashboardActor(store.id, s.user), params.tokenId);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/tokens?revoked=1' });
    },
  }),
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

const GATEWAY_FIELDS = ['provider', 'secret_key', 'publishable_key', 'api_key', 'webhook_secret'];
const METHOD_FIELDS: Record<string, string[]> = {
  card: GATEWAY_FIELDS,
  mada: GATEWAY_FIELDS,
  stcpay: GATEWAY_FIELDS,
  applepay: GATEWAY_FIELDS,
  coinbase: GATEWAY_FIELDS,
  paypal: ['email', 'pay_link'],
  bank: ['bank_name', 'account_name', 'account_number', 'iban'],
};

async function paymentsPage(
  ctx: AppContext,
  status: number,
  opts: Parameters<typeof paymentsView>[2],
): Promise<void> {
  const { store, shell } = dashboardOf(ctx);
  const settings = await storeSettings(ctx.deps, store.id);
  sendPage(ctx, { status, html: paymentsView(shell, settings.payment_methods, opts) });
}

export const dashboardPaymentRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/payments',
    interface: 'platform',
    operationId: 'dashboardPayments',
    summary: 'Merchant dashboard: payment methods',
    description:
      'One form per method: provider and credentials (write-only: which keys are saved is shown, never their ' +
      'values), PayPal and bank details, on or off, remove.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ saved?: string; removed?: string; lang?: string }, true>({
        saved: Joi.string().valid(...PAYMENT_METHOD_IDS),
        removed: Joi.string().valid(...PAYMENT_METHOD_IDS),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: {
      200: htmlResponse('The payment methods.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { query }) => {
      const { t } = dashboardOf(ctx).shell;
      const notice = query.saved
        ? t.methodSaved(t.methodName[query.saved])
        : query.removed
          ? t.methodRemoved(t.methodName[query.removed])
          : null;
      await paymentsPage(ctx, 200, { notice, errors: {} });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/payments/{method}',
    interface: 'platform',
    operationId: 'dashboardPaymentSave',
    summary: 'Merchant dashboard: save or remove a payment method',
    description:
      'The method’s form, checked and written as `PATCH /shawarma/store` writes `payment_methods`: ' +
      'credentials sealed at rest, an empty credential input keeps the saved one; `remove=1` removes the ' +
      'method. 303 to the page.',
    guards: signedIn('settings.edit'),
    request: {
      params: Joi.object({
        method: Joi.string()
          .valid(...PAYMENT_METHOD_IDS)
          .required(),
      }) as Joi.ObjectSchema<{ method: string }>,
      ...formBody(
        Object.fromEntries(
          [...new Set(Object.values(METHOD_FIELDS).flat()), 'active', 'remove'].map((k) => [
            k,
            Joi.string().allow('').max(600),
          ]),
        ),
      ),
    },
    responses: {
      303: redirectResponse('Saved or removed.'),
      422: htmlResponse('The page again, saying what is wrong with the method.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const method = params.method;
      const remove = formField(ctx, 'remove') === '1';
      const given: Record<string, unknown> = { active: formField(ctx, 'active') === '1' };
      for (const k of METHOD_FIELDS[method] ?? []) {
        const v = formField(ctx, k).trim();
        if (v !== '') given[k] = v;
      }
      const patch = { [method]: remove ? null : given };
      const refuse = (message: string) =>
        paymentsPage(ctx, 422, { notice: null, errors: { [method]: message } });
      const { value, error } = paymentMethodsSchema('patch').validate(patch, { abortEarly: false });
      if (error)
        return refuse(
          shell.locale === 'en'
            ? error.details.map((d) => `${String(d.path.at(-1))}: ${d.message}`).join(' ')
            : shell.t.checkField,
        );
      try {
        await updateStoreSettings(ctx.deps, dashboardActor(store.id, s.user), store.id, {
          payment_methods: value,
        });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        return refuse(
          shell.locale === 'en'
            ? Object.entries(err.errors)
                .map(([k, m]) => `${k} ${m.join(', ')}`)
                .join('; ')
            : shell.t.checkField,
        );
      }
      sendPage(ctx, {
        status: 303,
        location: `/merchant/payments?${remove ? 'removed' : 'saved'}=${method}`,
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/fivem',
    interface: 'platform',
    operationId: 'dashboardFivemServers',
    summary: 'Merchant dashboard: FiveM servers',
    description:
      'The store’s game servers (name, last four characters of the secret, last seen), add, revoke.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ revoked?: string; lang?: string }, true>({
        revoked: Joi.string().max(2),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: {
      200: htmlResponse('The FiveM servers page.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { query }) => {
      const { shell } = dashboardOf(ctx);
      await fivemPage(ctx, 200, {
        secret: null,
        notice: query.revoked === '1' ? shell.t.serverRevoked : null,
        error: null,
        name: '',
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/fivem',
    interface: 'platform',
    operationId: 'dashboardFivemServerCreate',
    summary: 'Merchant dashboard: add a FiveM server',
    description:
      'Form field `name` (1–100 characters). The server’s secret is shown once; only its hash is kept.',
    guards: signedIn('settings.edit'),
    request: formBody({ name: Joi.string().allow('').max(400) }),
    responses: {
      200: htmlResponse('The page with the new secret, shown this once.'),
      422: htmlResponse('The form again, naming the bad field.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell } = dashboardOf(ctx);
      const name = formField(ctx, 'name').trim();
      if (!name || name.length > 100) {
        return fivemPage(ctx, 422, { secret: null, notice: null, error: shell.t.errServerName, name });
      }
      const issued = await createFivemServer(ctx.deps.knex, store.id, name);
      await fivemPage(ctx, 200, { secret: issued.secret, notice: null, error: null, name: '' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/fivem/{serverId}/revoke',
    interface: 'platform',
    operationId: 'dashboardFivemServerRevoke',
    summary: 'Merchant dashboard: revoke a FiveM server’s secret',
    description: 'The game server is refused from its next request. 303 to the page.',
    guards: signedIn('settings.edit'),
    request: {
      params: Joi.object({
        serverId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ serverId: number }>,
      ...formBody({}),
    },
    responses: {
      303: redirectResponse('Revoked.'),
      404: htmlResponse('No such live server in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      const revoked = await revokeFivemServers(ctx.deps.knex, store.id, { id: params.serverId });
      if (revoked.length === 0) {
        return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
      }
      sendPage(ctx, { status: 303, location: '/merchant/fivem?revoked=1' });
    },
  }),
];

async function fivemPage(
  ctx: AppContext,
  status: number,
  opts: Parameters<typeof fivemServersView>[2],
): Promise<void> {
  const { store, shell } = dashboardOf(ctx);
  const servers = await listFivemServers(ctx.deps.knex, store.id);
  sendPage(ctx, { status, html: fivemServersView(shell, servers, opts) });
}
