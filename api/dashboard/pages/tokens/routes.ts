import Joi from 'joi';
import { NotFoundError } from '../../../../shared/errors';
import {
  issueTokenFor,
  listMerchantTokens,
  merchantTokenName,
  revokeTokenOf,
  TokenScope,
} from '../../../../shared/services/tokens/merchant';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import { tokensView, confirmRevokeView } from './view';
import { formBody, postAnswers, dashboardActor } from '../../forms';

/**
 * The Merchant API tokens page, through the Merchant API's own token service (the token shown once, only its
 * hash kept, every change in the audit log). Owners and managers.
 */

export const dashboardTokenRoutes = [
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
];
