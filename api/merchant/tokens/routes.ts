import Joi from 'joi';
import { listFivemServers } from '../../../shared/services/fivem';
import { registerFivemServer, revokeFivemServer } from '../../../shared/services/fivem/merchant-writes';
import {
  issueTokenFor,
  listMerchantTokens,
  revokeTokenOf,
  TOKEN_SCOPES,
  type TokenScope,
} from '../../../shared/services/tokens/merchant';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, idParams, noQuery } from '../common';
import {
  CreatedFivemServer,
  CreatedMerchantToken,
  FivemServerInfo,
  merchantOk,
  merchantRefused,
  MerchantTokenInfo,
} from '../responses';

const tokenBody = Joi.object<{ name: string; scope: TokenScope }, true>({
  name: Joi.string().trim().min(1).max(100).required(),
  scope: Joi.string()
    .valid(...TOKEN_SCOPES)
    .required(),
}).required();

const serverBody = Joi.object<{ name: string }, true>({
  name: Joi.string().trim().min(1).max(100).required(),
}).required();

const fivemView = (s: {
  id: number;
  name: string;
  last4: string | null;
  last_seen_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}) => ({
  id: Number(s.id),
  name: s.name,
  last4: s.last4 ?? null,
  last_seen_at: s.last_seen_at ? new Date(s.last_seen_at).toISOString() : null,
  revoked_at: s.revoked_at ? new Date(s.revoked_at).toISOString() : null,
  created_at: new Date(s.created_at).toISOString(),
});

export const merchantTokenRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/tokens',
    interface: 'merchant',
    operationId: 'merchantListTokens',
    summary: 'List API tokens',
    description:
      'Every token of the store, revoked ones included, with its `scope` and last four characters only.',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The tokens.', { type: 'array', items: MerchantTokenInfo }) },
    handler: (ctx) => listMerchantTokens(ctx.deps.knex, ctx.state.store!.id),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/tokens',
    interface: 'merchant',
    operationId: 'merchantCreateToken',
    summary: 'Create an API token',
    description:
      '`scope` `read` (GET routes only: every other method is a 403) or `write` (every route). The token is ' +
      'in `token`, shown this once: only its hash is kept.',
    guards: merchantGuards,
    request: { body: tokenBody, example: { name: 'reporting', scope: 'read' } },
    responses: { 201: merchantOk('The token, shown once.', CreatedMerchantToken) },
    handler: async (ctx, { body }) =>
      reply(await issueTokenFor(ctx.deps.knex, actorOf(ctx), body), {
        status: 201,
        message: 'Token created: keep it, it is shown once',
      }),
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/tokens/{id}',
    interface: 'merchant',
    operationId: 'merchantRevokeToken',
    summary: 'Revoke an API token',
    description: 'Refused from the next request on. Revoking the token of this request is allowed.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('Revoked.', MerchantTokenInfo),
      404: merchantRefused('not_found', 'No such token in this store.', 'Token not found'),
    },
    handler: async (ctx, { params }) =>
      reply(await revokeTokenOf(ctx.deps.knex, actorOf(ctx), params.id), { message: 'Token revoked' }),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/fivem/servers',
    interface: 'merchant',
    operationId: 'merchantListFivemServers',
    summary: 'List FiveM game servers',
    description: 'Each game server’s secret is named by its last four characters only.',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The game servers.', { type: 'array', items: FivemServerInfo }) },
    handler: async (ctx) => (await listFivemServers(ctx.deps.knex, ctx.state.store!.id)).map(fivemView),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/fivem/servers',
    interface: 'merchant',
    operationId: 'merchantCreateFivemServer',
    summary: 'Register a FiveM game server',
    description:
      'Issues its secret (the `X-FiveM-Secret` header of the FiveM API), shown this once in `secret`.',
    guards: merchantGuards,
    request: { body: serverBody, example: { name: 'EU-1' } },
    responses: { 201: merchantOk('The game server, with its secret.', CreatedFivemServer) },
    handler: async (ctx, { body }) => {
      const actor = actorOf(ctx);
      const { row, secret } = await registerFivemServer(ctx.deps.knex, actor, body.name);
      const out = { ...fivemView(row), secret };
      return reply(out, {
        status: 201,
        message: 'Game server registered: keep the secret, it is shown once',
      });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/fivem/servers/{id}',
    interface: 'merchant',
    operationId: 'merchantRevokeFivemServer',
    summary: 'Revoke a FiveM game server’s secret',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('Revoked.', FivemServerInfo),
      404: merchantRefused('not_found', 'No such game server in this store.', 'Game server not found'),
    },
    handler: async (ctx, { params }) => {
      const actor = actorOf(ctx);
      const out = fivemView(await revokeFivemServer(ctx.deps.knex, actor, params.id));
      return reply(out, { message: 'Game server secret revoked' });
    },
  }),
];
