import Joi from 'joi';
import { couponKeys, type CouponInput, type CouponPatch } from '../../../shared/services/catalogue/schema';
import {
  couponDetail,
  CouponFilters,
  createCoupon,
  deleteCoupon,
  listCoupons,
  updateCoupon,
} from '../../../shared/services/coupons/manage';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, idParams, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import { Coupon, CouponDeleted, merchantOk, merchantRefused, pageOf } from '../responses';

/** Coupon bodies: the fixture's coupon keys (the one schema the seed shares), products named by id. */
const createBody = Joi.object<CouponInput>(couponKeys('create')).required();
const patchBody = Joi.object<CouponPatch>(couponKeys('patch'))
  .min(1)
  .required()
  .messages({ 'object.min': 'name at least one coupon key to change' });
const couponsQuery = listQuery<CouponFilters>({
  active: Joi.boolean().truthy('1').falsy('0'),
  code: Joi.string().max(100),
});
const notFound = merchantRefused('not_found', 'No such coupon in this store.', 'Coupon not found');

const RULES =
  'Keys: `code` (letters, digits, - and _; unique in the store whatever the case: a code already used is ' +
  'a 422 naming `code`), `type` (`percentage`: `amount` is a percent up to 100; `fixed`: `amount` is ' +
  'money), `active`, `max_uses` (null: unlimited), `min_order` (the subtotal it needs), `products` ' +
  '(product ids it applies to; empty: all), `payment_restrictions` (payment methods it is valid with; ' +
  'empty: all), `starts_at`, `expires_at`. The checkout enforces every one.';

export const merchantCouponRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/coupons',
    interface: 'merchant',
    operationId: 'merchantListCoupons',
    summary: 'List coupons (paginated)',
    description: `Newest first, with \`uses\` so far. Filters \`active\`, \`code\`. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { query: couponsQuery },
    responses: { 200: merchantOk('One page of coupons.', pageOf(Coupon)) },
    handler: async (ctx, { query }) => {
      const { page, per_page, ...filters } = query;
      const storeId = ctx.state.store!.id;
      return pageBody(
        await ctx.deps.readKnex.run(storeId, (knex) =>
          listCoupons(knex, storeId, filters, { page, per_page }),
        ),
      );
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/coupons/{id}',
    interface: 'merchant',
    operationId: 'merchantGetCoupon',
    summary: 'Coupon details',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('The coupon.', Coupon), 404: notFound },
    handler: (ctx, { params }) => couponDetail(ctx.deps.knex, ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/coupons',
    interface: 'merchant',
    operationId: 'merchantCreateCoupon',
    summary: 'Create a coupon',
    description: RULES,
    guards: merchantGuards,
    request: {
      body: createBody,
      example: {
        code: 'SAVE10',
        type: 'percentage',
        amount: '10',
        max_uses: 100,
        min_order: '20.00',
        payment_restrictions: ['card', 'mada'],
        expires_at: '2030-01-01T00:00:00Z',
      },
    },
    responses: { 201: merchantOk('The coupon.', Coupon) },
    handler: async (ctx, { body }) =>
      reply(await createCoupon(ctx.deps.knex, actorOf(ctx), ctx.state.store!.id, body), {
        status: 201,
        message: 'Coupon created',
      }),
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/coupons/{id}',
    interface: 'merchant',
    operationId: 'merchantUpdateCoupon',
    summary: 'Update a coupon',
    description: `Any of the creation keys; a key left out keeps its value. \`max_uses\` may not go below the uses so far. ${RULES}`,
    guards: merchantGuards,
    request: { params: idParams, body: patchBody, example: { active: false } },
    responses: { 200: merchantOk('The coupon.', Coupon), 404: notFound },
    handler: async (ctx, { params, body }) =>
      reply(await updateCoupon(ctx.deps.knex, actorOf(ctx), ctx.state.store!.id, params.id, body), {
        message: 'Coupon updated',
      }),
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/coupons/{id}',
    interface: 'merchant',
    operationId: 'merchantDeleteCoupon',
    summary: 'Delete a coupon',
    description:
      'An unused coupon is deleted (`deleted: true`). One that orders used, or that an unpaid checkout ' +
      'holds, is deactivated instead (`deleted: false`, `active: false`), so those orders keep its record.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('Deleted or deactivated.', CouponDeleted), 404: notFound },
    handler: async (ctx, { params }) => {
      const out = await deleteCoupon(ctx.deps.knex, actorOf(ctx), ctx.state.store!.id, params.id);
      return reply(out, { message: out.deleted ? 'Coupon deleted' : 'Coupon has uses: deactivated' });
    },
  }),
];
