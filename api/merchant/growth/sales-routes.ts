import Joi from 'joi';
import { decimal, isoDate, rowId, text } from '../../../shared/services/catalogue/schema';
import {
  createSale,
  deleteSale,
  listSales,
  saleDetail,
  type SaleInput,
  type SalePatch,
  updateSale,
} from '../../../shared/services/growth/sales-admin';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, idParams } from '../common';
import { merchantOk, merchantRefused, obj } from '../responses';
import { percentValue } from './fields';

/** Timed sales (docs/growth.md, "Timed sales"): the Merchant API's side. */

const keys = (patch: boolean) => {
  const req = <S extends Joi.Schema>(s: S): S => (patch ? s : (s.required() as S));
  return {
    name: req(text(200)),
    percent: percentValue('a sale', { nullable: true }),
    amount: decimal().allow(null),
    products: Joi.array().items(rowId()).max(1000),
    categories: Joi.array().items(rowId()).max(200),
    starts_at: req(isoDate()),
    ends_at: req(isoDate()),
    stackable: Joi.boolean().strict(),
  };
};
const createBody = Joi.object<SaleInput>(keys(false)).required();
const patchBody = Joi.object<SalePatch>(keys(true))
  .min(1)
  .required()
  .messages({ 'object.min': 'name at least one sale key to change' });
const listQueryOf = Joi.object<{ state?: 'scheduled' | 'running' | 'ended' }, true>({
  state: Joi.string().valid('scheduled', 'running', 'ended'),
})
  .unknown(false)
  .messages({ 'object.unknown': '{{#label}} is not a known parameter' });

const str = { type: 'string' } as const;
const money = { type: ['string', 'null'], pattern: '^\\d+(\\.\\d{2,3})?$' } as const;
export const Sale = obj({
  id: { type: 'integer' },
  name: str,
  percent: { ...money, description: 'Percent off ("20.00"), or null for a fixed amount.' },
  amount: { ...money, description: 'Money off each unit, or null for a percentage.' },
  products: { type: 'array', items: { type: 'integer' } },
  categories: { type: 'array', items: { type: 'integer' } },
  starts_at: { type: 'string', format: 'date-time' },
  ends_at: { type: 'string', format: 'date-time' },
  stackable: { type: 'boolean' },
  state: { type: 'string', enum: ['scheduled', 'running', 'ended'] },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
});
const notFound = merchantRefused('not_found', 'No such sale in this store.', 'Sale not found');

const RULES =
  'Keys: `name`; `percent` (0 to 100, two decimals; a number or a decimal string) or `amount` (money off ' +
  'each unit), one of them; `products` and/or `categories` (ids of this store; a category covers every ' +
  'product in it); `starts_at` and `ends_at` (ISO 8601; the sale runs from the first, included, to the ' +
  'second, excluded); `stackable` (default false). Between the two instants the products’ `price.actual` ' +
  'in every interface and what every checkout charges are the price less the sale (rounded half up to the ' +
  'currency’s minor unit); overlapping sales give the buyer the best of the non-stackable ones plus every ' +
  'stackable one. The price starts and ends on time without a restart.';

export const merchantSaleRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/sales',
    interface: 'merchant',
    operationId: 'merchantListSales',
    summary: 'List timed sales',
    description: 'Latest start first (at most 500), each with its `state` now. Filter `state`.',
    guards: merchantGuards,
    request: { query: listQueryOf },
    responses: { 200: merchantOk('The sales.', { type: 'array', items: Sale }) },
    handler: (ctx, { query }) => listSales(ctx.deps.knex, ctx.state.store!.id, query),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/sales/{id}',
    interface: 'merchant',
    operationId: 'merchantGetSale',
    summary: 'Timed sale details',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('The sale.', Sale), 404: notFound },
    handler: (ctx, { params }) => saleDetail(ctx.deps.knex, ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/sales',
    interface: 'merchant',
    operationId: 'merchantCreateSale',
    summary: 'Schedule a timed sale',
    description: RULES,
    guards: merchantGuards,
    request: {
      body: createBody,
      example: {
        name: 'White Friday',
        percent: 20,
        products: [10],
        starts_at: '2026-11-27T00:00:00Z',
        ends_at: '2026-11-30T00:00:00Z',
      },
    },
    responses: { 201: merchantOk('The sale.', Sale) },
    handler: async (ctx, { body }) =>
      reply(await createSale(ctx.deps, actorOf(ctx), ctx.state.store!.id, body), {
        status: 201,
        message: 'Sale created',
      }),
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/sales/{id}',
    interface: 'merchant',
    operationId: 'merchantUpdateSale',
    summary: 'Update a timed sale',
    description: `Any of the creation keys; a key left out keeps its value (naming \`percent\` replaces an \`amount\` and the other way round). ${RULES}`,
    guards: merchantGuards,
    request: { params: idParams, body: patchBody, example: { ends_at: '2026-12-01T00:00:00Z' } },
    responses: { 200: merchantOk('The sale.', Sale), 404: notFound },
    handler: async (ctx, { params, body }) =>
      reply(await updateSale(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.id, body), {
        message: 'Sale updated',
      }),
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/sales/{id}',
    interface: 'merchant',
    operationId: 'merchantDeleteSale',
    summary: 'Delete a timed sale',
    description: 'Ends it at once: the usual prices from the next read on.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('Deleted.', obj({ id: { type: 'integer' }, deleted: { type: 'boolean' } })),
      404: notFound,
    },
    handler: async (ctx, { params }) =>
      reply(await deleteSale(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.id), {
        message: 'Sale deleted',
      }),
  }),
];
