import Joi from 'joi';
import {
  MAX_CHECKIN_DAYS,
  MAX_GRACE_DAYS,
  MAX_HEARTBEAT_SECONDS,
  MAX_RESET_LIMIT,
  MAX_RESET_WINDOW_DAYS,
  MIN_HEARTBEAT_SECONDS,
  showLicensePolicy,
  updateLicensePolicy,
  type LicensePolicy,
} from '../../../shared/services/licenses/policy';
import { licenseHistory } from '../../../shared/services/licenses/history';
import { merchantGuards } from '../../guards';
import { id, pagination } from '../../http/fields';
import { defineRoute, reply } from '../../http/route';
import { object, schemaRef } from '../../openapi/components';
import type { ResponseObject, SchemaObject } from '../../openapi/types';

/** A product's license policy (Merchant API): grace period and check-in period. */

const policy: SchemaObject = object({
  product_id: { type: 'integer' },
  grace_days: {
    type: 'integer',
    description: 'Days a license past its expiry still verifies, with status `grace`; 0: none.',
  },
  checkin_days: {
    type: 'integer',
    description: 'Offline certificates last at most this many days; 0: the 30-day limit only.',
  },
  floating: {
    type: 'boolean',
    description: 'Each license’s activations are seats held by `POST /verify/heartbeat`.',
  },
  heartbeat_seconds: {
    type: 'integer',
    description: 'A floating seat lasts this long after a heartbeat; a silent machine’s seat is then free.',
  },
  reset_limit: {
    type: 'integer',
    description: 'Self-service resets (`POST /verify/reset`) a license may make per window; 0: none.',
  },
  reset_window_days: { type: 'integer', description: 'The window of `reset_limit`, in days.' },
});

const ok: ResponseObject = {
  description: 'The product’s license policy.',
  content: {
    'application/json': {
      schema: {
        allOf: [
          schemaRef('MerchantSuccess'),
          { type: 'object', required: ['data'], properties: { data: policy } },
        ],
      },
    },
  },
};
const notFound: ResponseObject = {
  description: 'No such product in this store.',
  content: { 'application/json': { schema: schemaRef('MerchantError') } },
};

const params = Joi.object<{ productId: number }, true>({ productId: id().required() });

type PolicyBody = Partial<Omit<LicensePolicy, 'product_id'>>;

const historyPage: ResponseObject = {
  description: 'One page of the license’s history, newest first.',
  content: {
    'application/json': {
      schema: {
        allOf: [
          schemaRef('MerchantSuccess'),
          {
            type: 'object',
            required: ['data'],
            properties: {
              data: object({
                items: {
                  type: 'array',
                  items: object({
                    id: { type: 'integer' },
                    kind: { type: 'string', enum: ['activated', 'reset'] },
                    actor: {
                      type: 'string',
                      enum: ['customer', 'merchant'],
                      description: 'customer: the key holder, through /verify; merchant: through /shawarma.',
                    },
                    hint: {
                      type: ['string', 'null'],
                      description: 'Last characters of the hwid or IP; null for a reset of every activation.',
                    },
                    removed: { type: ['integer', 'null'], description: 'Activations a reset removed.' },
                    created_at: { type: 'string', format: 'date-time' },
                  }),
                },
                meta: object({
                  page: { type: 'integer' },
                  per_page: { type: 'integer' },
                  total: { type: 'integer' },
                  last_page: { type: 'integer' },
                }),
              }),
            },
          },
        ],
      },
    },
  },
};

export const merchantLicensePolicyRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/licenses/{licenseId}/history',
    interface: 'merchant',
    operationId: 'merchantLicenseHistory',
    summary: 'A license’s activations and resets',
    description: 'Every activation and reset of the license, who made it and when; newest first, paged.',
    guards: merchantGuards,
    request: {
      params: Joi.object<{ licenseId: number }, true>({ licenseId: id().required() }),
      query: Joi.object<{ page: number; per_page: number }, true>({ ...pagination }),
    },
    responses: {
      200: historyPage,
      404: {
        description: 'No such license in this store.',
        content: { 'application/json': { schema: schemaRef('MerchantError') } },
      },
    },
    handler: (ctx, { params: p, query }) => licenseHistory(ctx.deps, ctx.state.store!.id, p.licenseId, query),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/products/{productId}/license-policy',
    interface: 'merchant',
    operationId: 'merchantGetLicensePolicy',
    summary: 'A product’s license policy',
    guards: merchantGuards,
    request: { params },
    responses: { 200: ok, 404: notFound },
    handler: (ctx, { params: p }) => showLicensePolicy(ctx.deps, ctx.state.store!.id, p.productId),
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/products/{productId}/license-policy',
    interface: 'merchant',
    operationId: 'merchantUpdateLicensePolicy',
    summary: 'Change a product’s license policy',
    description:
      `\`grace_days\` (0-${MAX_GRACE_DAYS}): a license past its expiry answers \`/verify\` with status ` +
      '`grace` and `grace_ends_at` for that many days before `LICENSE_EXPIRED`. ' +
      `\`checkin_days\` (0-${MAX_CHECKIN_DAYS}): offline certificates last at most that many days. ` +
      '`floating`: each license’s `max_activations` become seats that machines hold by ' +
      `\`POST /verify/heartbeat\` for \`heartbeat_seconds\` (${MIN_HEARTBEAT_SECONDS}-${MAX_HEARTBEAT_SECONDS}) ` +
      'after each beat. `reset_limit` per `reset_window_days`: the customer’s self-service resets ' +
      '(`POST /verify/reset`) per license (default 2 per 30 days; 0: none). Fields left out keep their values; every license of the product answers the new policy at once.',
    guards: merchantGuards,
    request: {
      params,
      body: Joi.object<PolicyBody, true>({
        grace_days: Joi.number().integer().min(0).max(MAX_GRACE_DAYS),
        checkin_days: Joi.number().integer().min(0).max(MAX_CHECKIN_DAYS),
        floating: Joi.boolean(),
        heartbeat_seconds: Joi.number().integer().min(MIN_HEARTBEAT_SECONDS).max(MAX_HEARTBEAT_SECONDS),
        reset_limit: Joi.number().integer().min(0).max(MAX_RESET_LIMIT),
        reset_window_days: Joi.number().integer().min(1).max(MAX_RESET_WINDOW_DAYS),
      }).min(1),
      example: { grace_days: 7, checkin_days: 7, floating: true, heartbeat_seconds: 300 },
    },
    responses: { 200: ok, 404: notFound },
    handler: async (ctx, { params: p, body }) =>
      reply(await updateLicensePolicy(ctx.deps, ctx.state.store!.id, p.productId, body), {
        message: 'License policy saved',
      }),
  }),
];
