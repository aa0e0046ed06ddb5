import Joi from 'joi';
import type { LicenseStatus } from '../../../../db/models';
import { InvalidError, NotFoundError } from '../../../../shared/errors';
import { LICENSE_STATUSES, listStoreLicenses } from '../../../../shared/services/licenses/list';
import {
  reactivateLicense,
  resetActivations,
  showLicense,
  suspendLicense,
} from '../../../../shared/services/licenses/merchant';
import { productName } from '../../../../shared/services/catalogue/choices';
import { formBody, guardedAnswers, langParam, notFound, postAnswers } from '../../forms';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, formField, signedIn } from '../../session';
import { licensesView, licenseView } from './view';

/**
 * The store's licenses: suspend, reactivate, reset activations through the Merchant API's own functions, so
 * verify sees a change at once. Owners and managers.
 */

const licenseParams = Joi.object({
  licenseId: Joi.number().integer().min(1).max(2_147_483_647).required(),
}) as Joi.ObjectSchema<{ licenseId: number }>;

async function renderLicense(
  ctx: AppContext,
  licenseId: number,
  message: string | null,
  error: string | null = null,
  status = 200,
) {
  const { store, shell } = dashboardOf(ctx);
  let license;
  try {
    license = await showLicense(ctx.deps, store.id, licenseId);
  } catch (err) {
    if (err instanceof NotFoundError) return notFound(ctx);
    throw err;
  }
  const product_name = await productName(ctx.deps.knex, license.product_id);
  sendPage(ctx, {
    status,
    html: licenseView(shell, { ...license, product_name }, message, error),
  });
}

/** One license move: the service's refusal (a status that cannot make it) is the page again, saying so. */
function licenseMove(
  path: 'suspend' | 'reactivate' | 'reset',
  summary: string,
  description: string,
  run: (ctx: AppContext, storeId: number, licenseId: number) => Promise<string>,
) {
  return defineRoute({
    method: 'post',
    path: `/merchant/licenses/{licenseId}/${path}`,
    interface: 'platform',
    operationId: `dashboardLicense${path[0].toUpperCase()}${path.slice(1)}`,
    summary,
    description,
    guards: signedIn('licenses.manage'),
    request: {
      params: licenseParams,
      ...formBody({
        activation_id: Joi.string()
          .allow('')
          .pattern(/^\d{1,10}$/),
      }),
    },
    responses: {
      200: htmlResponse('The license with the change made.'),
      404: htmlResponse('No such license (or activation) in this store.'),
      409: htmlResponse('The license’s status does not allow this move (the license page, saying so).'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell } = dashboardOf(ctx);
      let message: string;
      try {
        message = await run(ctx, store.id, params.licenseId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        if (err instanceof InvalidError)
          return renderLicense(ctx, params.licenseId, null, shell.t.licenseRefused, 409);
        throw err;
      }
      return renderLicense(ctx, params.licenseId, message);
    },
  });
}

export const dashboardLicenseRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/licenses',
    interface: 'platform',
    operationId: 'dashboardLicenses',
    summary: 'Merchant dashboard: licenses',
    description:
      'Every license of the store, newest first, 20 a page; filters `status` and `key` (the whole key or ' +
      'its last characters).',
    guards: signedIn('licenses.manage'),
    request: {
      query: Joi.object<{ page: number; status?: LicenseStatus; key?: string; lang?: string }, true>({
        page: Joi.number().integer().min(1).max(100_000).default(1),
        status: Joi.string()
          .valid(...LICENSE_STATUSES)
          .empty(''),
        key: Joi.string().trim().max(200).empty(''),
        lang: langParam,
      }),
    },
    responses: { 200: htmlResponse('The licenses list.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { store, shell } = dashboardOf(ctx);
      const list = await listStoreLicenses(
        ctx.deps.knex,
        store.id,
        { status: query.status, key: query.key },
        query.page,
      );
      sendPage(ctx, {
        status: 200,
        html: licensesView(shell, list, query.page, { status: query.status ?? '', key: query.key ?? '' }),
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/licenses/{licenseId}',
    interface: 'platform',
    operationId: 'dashboardLicense',
    summary: 'Merchant dashboard: one license',
    description: 'The license, its activations (device or address hints) and the moves its status allows.',
    guards: signedIn('licenses.manage'),
    request: { params: licenseParams, query: Joi.object({ lang: langParam }) },
    responses: {
      200: htmlResponse('The license.'),
      404: htmlResponse('No such license in this store.'),
      ...guardedAnswers,
    },
    handler: (ctx, { params }) => renderLicense(ctx, params.licenseId, null),
  }),
  licenseMove(
    'suspend',
    'Merchant dashboard: suspend a license',
    'Active → suspended; verify answers `LICENSE_SUSPENDED` at once.',
    async (ctx, storeId, id) => {
      const l = await suspendLicense(ctx.deps, storeId, id);
      return dashboardOf(ctx).shell.t.licenseChanged(dashboardOf(ctx).shell.t.licenseState[l.status]);
    },
  ),
  licenseMove(
    'reactivate',
    'Merchant dashboard: reactivate a license',
    'Suspended → active.',
    async (ctx, storeId, id) => {
      const l = await reactivateLicense(ctx.deps, storeId, id);
      return dashboardOf(ctx).shell.t.licenseChanged(dashboardOf(ctx).shell.t.licenseState[l.status]);
    },
  ),
  licenseMove(
    'reset',
    'Merchant dashboard: reset a license’s activations',
    'Without `activation_id`: every activation; with it, that one. The freed slots take new devices at once.',
    async (ctx, storeId, id) => {
      const activation = formField(ctx, 'activation_id');
      const result = await resetActivations(
        ctx.deps,
        storeId,
        id,
        activation ? { activation_id: Number(activation) } : {},
      );
      return dashboardOf(ctx).shell.t.activationsRemoved(result.removed);
    },
  ),
];
