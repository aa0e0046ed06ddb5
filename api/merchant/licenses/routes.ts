import Joi from 'joi';
import type { LicenseStatus } from '../../../db/models';
import {
  listProductLicenses,
  reactivateLicense,
  resetActivations,
  showLicense,
  suspendLicense,
  type ResetActivationsInput,
} from '../../../shared/services/licenses/merchant';
import { merchantGuards } from '../../guards';
import { id, pagination } from '../../http/fields';
import { defineRoute, reply } from '../../http/route';
import { object, schemaRef } from '../../openapi/components';
import type { ResponseObject, SchemaObject } from '../../openapi/types';

/**
 * Merchant control of licenses (/shawarma): list a product's licenses, one license with its activations,
 * the dashboard actions suspend and reactivate, and activation resets. Scoped to the token's store.
 */

const STATUSES: LicenseStatus[] = ['generated', 'active', 'expired', 'suspended', 'revoked'];

const merchantOk = (description: string, data: SchemaObject): ResponseObject => ({
  description,
  content: {
    'application/json': {
      schema: {
        allOf: [schemaRef('MerchantSuccess'), { type: 'object', required: ['data'], properties: { data } }],
      },
    },
  },
});

const license: SchemaObject = object({
  id: { type: 'integer' },
  key: { type: 'string' },
  product_id: { type: 'integer' },
  plan_id: { type: ['integer', 'null'] },
  order_id: { type: ['integer', 'null'] },
  customer_id: { type: ['integer', 'null'] },
  status: { type: 'string', enum: STATUSES },
  lock_type: { type: 'string', enum: ['none', 'hwid', 'ip'] },
  max_activations: { type: 'integer', description: '0: unlimited.' },
  activations_count: { type: 'integer' },
  starts_at: { type: ['string', 'null'], format: 'date-time' },
  expires_at: { type: ['string', 'null'], format: 'date-time' },
  metadata: { type: ['object', 'null'] },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});

const withActivations: SchemaObject = {
  allOf: [
    license,
    object({
      activations: {
        type: 'array',
        items: object({
          id: { type: 'integer' },
          hint: {
            type: ['string', 'null'],
            description: 'Last characters of the hwid or IP (the value is kept only as an HMAC).',
          },
          created_at: { type: 'string', format: 'date-time' },
          last_seen_at: { type: 'string', format: 'date-time' },
        }),
      },
    }),
  ],
};

const licenseParams = Joi.object<{ licenseId: number }, true>({ licenseId: id().required() });

const notFound: ResponseObject = {
  description: 'No such license (or product) in this store.',
  content: { 'application/json': { schema: schemaRef('MerchantError') } },
};
const refused: ResponseObject = {
  description: 'The license’s status does not allow the action (e.g. suspending a revoked license).',
  content: { 'application/json': { schema: schemaRef('MerchantError') } },
};

interface ListQuery {
  page: number;
  per_page: number;
  status?: LicenseStatus;
}

export const merchantLicenseRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/products/{productId}/licenses',
    interface: 'merchant',
    operationId: 'merchantListProductLicenses',
    summary: 'A product’s licenses',
    description: 'Newest first, 15 per page by default; `status` filters.',
    guards: merchantGuards,
    request: {
      params: Joi.object<{ productId: number }, true>({ productId: id().required() }),
      query: Joi.object<ListQuery, true>({
        ...pagination,
        status: Joi.string().valid(...STATUSES),
      }),
    },
    responses: {
      200: merchantOk(
        'One page of licenses.',
        object({
          items: { type: 'array', items: license },
          meta: object({
            page: { type: 'integer' },
            per_page: { type: 'integer' },
            total: { type: 'integer' },
            last_page: { type: 'integer' },
          }),
        }),
      ),
      404: notFound,
    },
    handler: (ctx, { params, query }) =>
      listProductLicenses(ctx.deps, ctx.state.store!.id, params.productId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/licenses/{licenseId}',
    interface: 'merchant',
    operationId: 'merchantGetLicense',
    summary: 'A license with its activations',
    guards: merchantGuards,
    request: { params: licenseParams },
    responses: { 200: merchantOk('The license.', withActivations), 404: notFound },
    handler: (ctx, { params }) => showLicense(ctx.deps, ctx.state.store!.id, params.licenseId),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/licenses/{licenseId}/suspend',
    interface: 'merchant',
    operationId: 'merchantSuspendLicense',
    summary: 'Suspend a license',
    description:
      'active → suspended; verify then answers `LICENSE_SUSPENDED` at once. Already suspended: unchanged. ' +
      'Any other status: 400.',
    guards: merchantGuards,
    request: { params: licenseParams },
    responses: { 200: merchantOk('The license.', withActivations), 400: refused, 404: notFound },
    handler: async (ctx, { params }) =>
      reply(await suspendLicense(ctx.deps, ctx.state.store!.id, params.licenseId), {
        message: 'License suspended',
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/licenses/{licenseId}/reactivate',
    interface: 'merchant',
    operationId: 'merchantReactivateLicense',
    summary: 'Reactivate a suspended license',
    description:
      'suspended → active. Already active: unchanged. Any other status: 400. A license whose date passed ' +
      'meanwhile verifies as expired.',
    guards: merchantGuards,
    request: { params: licenseParams },
    responses: { 200: merchantOk('The license.', withActivations), 400: refused, 404: notFound },
    handler: async (ctx, { params }) =>
      reply(await reactivateLicense(ctx.deps, ctx.state.store!.id, params.licenseId), {
        message: 'License reactivated',
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/licenses/{licenseId}/reset-activations',
    interface: 'merchant',
    operationId: 'merchantResetLicenseActivations',
    summary: 'Reset activations',
    description:
      'Without a body (or `{}`): every activation. `hwid`: that hardware id (on an IP-locked license, that ' +
      'address). `activation_id`: that activation. The freed slots take new hwids at once. 404 when the hwid ' +
      'or activation is not there.',
    guards: merchantGuards,
    request: {
      params: licenseParams,
      body: Joi.object<ResetActivationsInput, true>({
        hwid: Joi.string().trim().min(1).max(256),
        activation_id: id(),
      }).oxor('hwid', 'activation_id'),
      example: { hwid: 'B7F3-99A1-PC' },
    },
    responses: {
      200: merchantOk('The license after the reset, with `removed`.', {
        allOf: [withActivations, object({ removed: { type: 'integer' } })],
      }),
      404: notFound,
    },
    handler: async (ctx, { params, body }) =>
      reply(await resetActivations(ctx.deps, ctx.state.store!.id, params.licenseId, body ?? {}), {
        message: 'Activations reset',
      }),
  }),
];
