import Joi from 'joi';
import { entitlementsSchema, type Entitlements } from '../../../shared/services/licenses/entitlements';
import {
  replacePlanEntitlements,
  showPlanEntitlements,
} from '../../../shared/services/licenses/plan-entitlements';
import { merchantGuards } from '../../guards';
import { id } from '../../http/fields';
import { defineRoute, reply } from '../../http/route';
import { object, schemaRef } from '../../openapi/components';
import type { ResponseObject, SchemaObject } from '../../openapi/types';

/**
 * A plan's entitlements (Merchant API): the named features every license of the plan unlocks, listed in its
 * /verify answers and offline certificates.
 */

const planEntitlements: SchemaObject = object({
  plan_id: { type: 'integer' },
  product_id: { type: 'integer' },
  name: { type: 'string' },
  duration: { type: 'string', enum: ['monthly', 'quarterly', 'yearly', 'lifetime'] },
  entitlements: {
    type: 'object',
    additionalProperties: { type: ['boolean', 'integer', 'string'] },
    description: 'Feature name → true/false, a whole number (a limit) or a short string.',
  },
});

const ok: ResponseObject = {
  description: 'The plan with its entitlements.',
  content: {
    'application/json': {
      schema: {
        allOf: [
          schemaRef('MerchantSuccess'),
          { type: 'object', required: ['data'], properties: { data: planEntitlements } },
        ],
      },
    },
  },
};
const notFound: ResponseObject = {
  description: 'No such plan of this product in this store.',
  content: { 'application/json': { schema: schemaRef('MerchantError') } },
};

const params = Joi.object<{ productId: number; planId: number }, true>({
  productId: id().required(),
  planId: id().required(),
});

export const merchantEntitlementRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/products/{productId}/plans/{planId}/entitlements',
    interface: 'merchant',
    operationId: 'merchantGetPlanEntitlements',
    summary: 'A plan’s entitlements',
    guards: merchantGuards,
    request: { params },
    responses: { 200: ok, 404: notFound },
    handler: (ctx, { params: p }) =>
      showPlanEntitlements(ctx.deps, ctx.state.store!.id, p.productId, p.planId),
  }),
  defineRoute({
    method: 'put',
    path: '/shawarma/products/{productId}/plans/{planId}/entitlements',
    interface: 'merchant',
    operationId: 'merchantReplacePlanEntitlements',
    summary: 'Replace a plan’s entitlements',
    description:
      'Replaces the plan’s named features, e.g. `{"entitlements": {"pro_export": true, "max_projects": 10}}` ' +
      '(at most 50; names lower case letters, digits and `_`). Every license of the plan lists them in its ' +
      'next `/verify` answer and certificate.',
    guards: merchantGuards,
    request: {
      params,
      body: Joi.object<{ entitlements: Entitlements }, true>({
        entitlements: entitlementsSchema().required(),
      }),
      example: { entitlements: { pro_export: true, max_projects: 10, tier: 'team' } },
    },
    responses: { 200: ok, 404: notFound },
    handler: async (ctx, { params: p, body }) =>
      reply(
        await replacePlanEntitlements(
          ctx.deps,
          ctx.state.store!.id,
          p.productId,
          p.planId,
          body.entitlements,
        ),
        { message: 'Entitlements saved' },
      ),
  }),
];
