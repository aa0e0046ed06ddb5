import Joi from 'joi';
import { ValidationError } from '../../../../shared/errors';
import { PAYMENT_METHOD_IDS } from '../../../../db/models';
import { paymentMethodsSchema } from '../../../../shared/services/catalogue/store-schema';
import { storeSettings, updateStoreSettings } from '../../../../shared/services/stores/settings';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { paymentsView } from './view';
import { formBody, postAnswers, dashboardActor } from '../../forms';

/** The payment methods page. */

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
];
