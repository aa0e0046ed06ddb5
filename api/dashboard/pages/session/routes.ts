import Joi from 'joi';
import { revokeAllSessions, revokeSession, switchStore } from '../../../../shared/services/staff/sessions';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { clearCookie, dashboardOf, formField, messagePage, SESSION_COOKIE, signedIn } from '../../session';

/** Signing out and switching stores. */

export const dashboardSessionRoutes = [
  defineRoute({
    method: 'post',
    path: '/merchant/signout',
    interface: 'platform',
    operationId: 'dashboardSignOut',
    summary: 'Merchant dashboard: sign out',
    description:
      'Ends this browser’s session (form field `_csrf`, the page’s form token). With `everywhere=1`, every ' +
      'session of this person in every browser. 303 to the sign-in page.',
    guards: signedIn(null),
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({ _csrf: Joi.string().max(200), everywhere: Joi.string().max(5) }).unknown(true),
    },
    responses: {
      303: redirectResponse('Signed out: to the sign-in page.'),
      403: htmlResponse('Missing or wrong form token, or a form from another site.'),
    },
    handler: async (ctx) => {
      const { signedIn: s } = dashboardOf(ctx);
      if (formField(ctx, 'everywhere') === '1') await revokeAllSessions(ctx.deps.knex, s.user.id);
      else await revokeSession(ctx.deps.knex, s.session.id);
      clearCookie(ctx, SESSION_COOKIE);
      sendPage(ctx, { status: 303, location: '/merchant/signin' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/switch',
    interface: 'platform',
    operationId: 'dashboardSwitchStore',
    summary: 'Merchant dashboard: look at another of my stores',
    description: 'Form fields `store_id` and `_csrf`; 303 to that store’s home.',
    guards: signedIn(null),
    request: {
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({ _csrf: Joi.string().max(200), store_id: Joi.string().max(12) }).unknown(true),
    },
    responses: {
      303: redirectResponse('To the chosen store’s home.'),
      403: htmlResponse('Missing or wrong form token, or not a store of this person.'),
    },
    handler: async (ctx) => {
      const { signedIn: s, shell } = dashboardOf(ctx);
      const ok = await switchStore(ctx.deps.knex, s, Number(formField(ctx, 'store_id')));
      if (!ok) return sendPage(ctx, messagePage(shell, 403, shell.t.forbiddenTitle, shell.t.forbidden));
      sendPage(ctx, { status: 303, location: '/merchant' });
    },
  }),
];
