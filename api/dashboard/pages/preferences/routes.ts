import Joi from 'joi';
import { ValidationError } from '../../../../shared/errors';
import { storePreferences, writeStorePreferences } from '../../../../shared/services/notices/preferences';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { dashboardActor, formBody, guardedAnswers, langParam, postAnswers } from '../../forms';
import { preferencesView } from './view';

/** The store's preferences page: new-order notices and the time zone (docs/dashboard.md, "Preferences"). */
export const dashboardPreferencesRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/preferences',
    interface: 'platform',
    operationId: 'dashboardPreferences',
    summary: 'Merchant dashboard: preferences',
    description: 'The new-order notice switches (message, e-mail), the store’s time zone and its digits.',
    guards: signedIn('settings.edit'),
    request: {
      query: Joi.object<{ saved?: string; lang?: string }, true>({
        saved: Joi.string().max(2),
        lang: langParam,
      }),
    },
    responses: { 200: htmlResponse('The preferences page.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const values = await storePreferences(ctx.deps.knex, store.id);
      sendPage(ctx, {
        status: 200,
        html: preferencesView(shell, { values, error: null, saved: query.saved === '1' }),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/preferences',
    interface: 'platform',
    operationId: 'dashboardPreferencesSave',
    summary: 'Merchant dashboard: save preferences',
    description:
      'Form fields `notify_order_message` and `notify_order_email` (checkboxes: `1` on, left out off) and ' +
      '`time_zone` (an IANA zone such as Asia/Riyadh), `digits` (`western`, the default, or `arabic_indic`: the ' +
      'digits of the store’s Arabic pages, widget and dashboard). Audited as `store.updated`. 303 to the page; 422 ' +
      'with the form naming a zone the platform does not know.',
    guards: signedIn('settings.edit'),
    request: formBody({
      notify_order_message: Joi.string().valid('1'),
      notify_order_email: Joi.string().valid('1'),
      time_zone: Joi.string().allow('').max(200),
      digits: Joi.string().valid('western', 'arabic_indic'),
    }),
    responses: {
      303: redirectResponse('Saved.'),
      422: htmlResponse('The form again, naming the bad time zone.'),
      ...postAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const values = {
        time_zone: formField(ctx, 'time_zone').trim(),
        notify_order_message: formField(ctx, 'notify_order_message') === '1',
        notify_order_email: formField(ctx, 'notify_order_email') === '1',
        digits:
          formField(ctx, 'digits') === 'arabic_indic' ? ('arabic_indic' as const) : ('western' as const),
      };
      try {
        await writeStorePreferences(ctx.deps, dashboardActor(store.id, s.user), store.id, values);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        return sendPage(ctx, {
          status: 422,
          html: preferencesView(shell, { values, error: 'time_zone', saved: false }),
        });
      }
      sendPage(ctx, { status: 303, location: '/merchant/preferences?saved=1' });
    },
  }),
];
