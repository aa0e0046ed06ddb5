import Joi from 'joi';
import { decideClaim, findClaim, listClaims } from '../../../shared/services/fraud/claims';
import { listDisputes } from '../../../shared/services/fraud/disputes';
import { listRefusals } from '../../../shared/services/fraud/refusals';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { idParams, noQuery } from '../common';
import { merchantOk, merchantRefused, obj } from '../responses';

/**
 * The fraud controls' merchant side (docs/fraud.md): the refusals with the rule that matched, the
 * disputes with their deadlines, and the key replacement claims with their answer.
 */

const str = { type: 'string' } as const;
const nstr = { type: ['string', 'null'] } as const;
const int = { type: 'integer' } as const;
const time = { type: 'string', format: 'date-time' } as const;
const ntime = { type: ['string', 'null'], format: 'date-time' } as const;

const Refusal = obj({
  id: int,
  rule: {
    type: 'string',
    description:
      'blocked_email, blocked_email_domain, blocked_ip, blocked_phone, country_code, ' +
      'max_orders_per_buyer_per_day, max_units_per_product_per_day or new_buyer_daily_limit.',
  },
  matched: { type: 'string', description: 'The entry or limit that matched.' },
  source: { type: 'string', description: 'The checkout path: embed, storefront, merchant, ...' },
  customer_email: nstr,
  customer_phone: nstr,
  client_ip: nstr,
  created_at: time,
});

const Dispute = obj({
  id: int,
  order_id: int,
  provider: str,
  provider_dispute_id: str,
  reason: nstr,
  amount: str,
  currency: str,
  deadline: ntime,
  licenses_revoked: int,
  created_at: time,
});

const Claim = obj({
  id: int,
  order_id: int,
  product_id: { type: ['integer', 'null'] },
  product_name: str,
  code: str,
  status: { type: 'string', enum: ['open', 'approved', 'declined'] },
  buyer_note: nstr,
  merchant_note: nstr,
  replacement_code: nstr,
  customer: obj({ name: str, email: str, phone: str }),
  created_at: time,
  decided_at: ntime,
});

const claimNotFound = merchantRefused('not_found', 'No such claim in this store.', 'Claim not found');
const decideBody = (noteRequired: boolean) =>
  Joi.object<{ note?: string }, true>({
    note: noteRequired
      ? Joi.string().trim().min(1).max(1000).required()
      : Joi.string().trim().max(1000).allow(''),
  }).required();

export const merchantFraudRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/fraud/refusals',
    interface: 'merchant',
    operationId: 'merchantListCheckoutRefusals',
    summary: 'Checkouts refused by the fraud controls',
    description:
      'The latest 100 checkouts the store’s fraud controls refused (docs/fraud.md), newest first, each with ' +
      'the rule and the entry that matched (the buyer was told only `checkout_blocked`).',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The refusals.', { type: 'array', items: Refusal }) },
    handler: (ctx) => listRefusals(ctx.deps.knex, ctx.state.store!.id),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/fraud/disputes',
    interface: 'merchant',
    operationId: 'merchantListDisputes',
    summary: 'Disputed orders',
    description:
      'Payments the card holder disputed with the provider (chargebacks), newest first, with the deadline ' +
      'for the merchant’s evidence and the licenses the dispute revoked.',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The disputes.', { type: 'array', items: Dispute }) },
    handler: (ctx) => listDisputes(ctx.deps.knex, ctx.state.store!.id),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/claims',
    interface: 'merchant',
    operationId: 'merchantListKeyClaims',
    summary: 'Key replacement claims',
    description:
      'Buyers’ “this key does not work” claims on delivered code keys, newest first (the latest 100); ' +
      '`status` filters open, approved or declined.',
    guards: merchantGuards,
    request: {
      query: Joi.object<{ status?: 'open' | 'approved' | 'declined' }, true>({
        status: Joi.string().valid('open', 'approved', 'declined'),
      }),
    },
    responses: { 200: merchantOk('The claims.', { type: 'array', items: Claim }) },
    handler: (ctx, { query }) => listClaims(ctx.deps.knex, ctx.state.store!.id, { status: query.status }),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/claims/{id}/approve',
    interface: 'merchant',
    operationId: 'merchantApproveKeyClaim',
    summary: 'Approve a key claim: a replacement key from stock',
    description:
      'Sells the next available key of the product to the same order item and marks the claimed key bad ' +
      '(it is never on sale again); the buyer gets the new key by message and e-mail. Once per claim (a ' +
      'second answer is a 409); no key left in stock is a 400 `out_of_stock` and the claim stays open.',
    guards: merchantGuards,
    request: { params: idParams, body: decideBody(false) },
    responses: {
      200: merchantOk('The claim, approved.', Claim),
      400: merchantRefused(
        'out_of_stock',
        'No key of the product is left in stock.',
        'No key of this product is left in stock to replace it',
      ),
      404: claimNotFound,
      409: merchantRefused('conflict', 'The claim was already answered.', 'This claim was already answered'),
    },
    handler: async (ctx, { params, body }) => {
      await decideClaim(ctx.deps, ctx.state.store!.id, params.id, { approve: true, note: body.note ?? null });
      return reply((await findClaim(ctx.deps.knex, params.id))!, { message: 'Claim approved' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/claims/{id}/decline',
    interface: 'merchant',
    operationId: 'merchantDeclineKeyClaim',
    summary: 'Decline a key claim, with a note',
    description: 'The buyer gets the note by message and e-mail. Once per claim (a second answer is a 409).',
    guards: merchantGuards,
    request: { params: idParams, body: decideBody(true) },
    responses: {
      200: merchantOk('The claim, declined.', Claim),
      404: claimNotFound,
      409: merchantRefused('conflict', 'The claim was already answered.', 'This claim was already answered'),
    },
    handler: async (ctx, { params, body }) => {
      await decideClaim(ctx.deps, ctx.state.store!.id, params.id, {
        approve: false,
        note: body.note ?? null,
      });
      return reply((await findClaim(ctx.deps.knex, params.id))!, { message: 'Claim declined' });
    },
  }),
];
