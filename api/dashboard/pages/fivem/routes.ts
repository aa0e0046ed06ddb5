import Joi from 'joi';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import {
  createFivemServer,
  listFivemServers,
  revokeFivemServers,
} from '../../../../shared/services/fivem/servers';
import { fivemServersView } from './view';
import { formBody, postAnswers } from '../../forms';

/** The FiveM game servers page. */

async function fivemPage(
  ctx: AppContext,
  status: number,
  opts: Parameters<typeof fivemServersView>[2],
): Promise<void> {
  const { store, shell } = dashboardOf(ctx);
  const servers = await listFivemServers(ctx.deps.knex, store.id);
  sendPage(ctx, { status, html: fivemServersView(shell, servers, opts) });
}

export const dashboardFivemRoutes = [
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
