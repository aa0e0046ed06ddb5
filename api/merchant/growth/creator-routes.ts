import Joi from 'joi';
import { text } from '../../../shared/services/catalogue/schema';
import {
  CODE,
  createCreator,
  creatorDetail,
  type CreatorInput,
  type CreatorPatch,
  deleteCreator,
  listCreators,
  updateCreator,
} from '../../../shared/services/growth/creators';
import { payoutCsv, rotateCreatorPage } from '../../../shared/services/growth/creator-reports';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, idParams, noQuery } from '../common';
import { merchantOk, merchantRefused, obj } from '../responses';
import { percentValue } from './fields';

/** Creator codes (docs/growth.md, "Creator codes"): the Merchant API's side. */

const code = Joi.string()
  .pattern(CODE)
  .messages({ 'string.pattern.base': 'must be 2 to 100 letters, digits, - or _' });
const keys = (patch: boolean) => {
  const req = <S extends Joi.Schema>(s: S): S => (patch ? s : (s.required() as S));
  return {
    name: req(text(200)),
    code: req(code),
    commission_percent: req(percentValue('a commission')),
    discount_percent: percentValue('a buyer discount', { nullable: true }),
    active: Joi.boolean().strict(),
  };
};
const createBody = Joi.object<CreatorInput>(keys(false)).required();
const patchBody = Joi.object<CreatorPatch>(keys(true))
  .min(1)
  .required()
  .messages({ 'object.min': 'name at least one creator key to change' });

const str = { type: 'string' } as const;
const money = { type: 'string', pattern: '^-?\\d+(\\.\\d{2,3})?$' } as const;
const creatorProps = {
  id: { type: 'integer' },
  name: str,
  code: str,
  commission_percent: { ...money, description: 'Percent of each paid order the creator earns ("10.00").' },
  discount_percent: { type: ['string', 'null'], description: 'Percent off for a buyer using the code.' },
  active: { type: 'boolean' },
  orders: { type: 'integer', description: 'Paid orders credited to the creator.' },
  revenue: { ...money, description: 'What those orders paid, less refunds and disputes.' },
  commission: { ...money, description: 'The creator’s share of the revenue, less refunds and disputes.' },
  currency: str,
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
} as const;
export const Creator = obj(creatorProps);
const CreatedCreator = obj({
  ...creatorProps,
  page_url: {
    type: 'string',
    format: 'uri',
    description: 'The creator’s private page (a secret address): shown once; rotate it to get a new one.',
  },
});
const notFound = merchantRefused('not_found', 'No such creator in this store.', 'Creator not found');
const csvQuery = Joi.object<{ month?: string }, true>({
  month: Joi.string()
    .pattern(/^\d{4}-(0[1-9]|1[0-2])$/)
    .messages({ 'string.pattern.base': 'must be a month, YYYY-MM' }),
})
  .unknown(false)
  .messages({ 'object.unknown': '{{#label}} is not a known parameter' });

const RULES =
  'Keys: `name`, `code` (2 to 100 letters, digits, - or _; unique among the store’s creators whatever the ' +
  'case), `commission_percent` (0 to 100: the creator’s share of what each credited order paid), ' +
  '`discount_percent` (optional: percent off for a buyer using the code without a coupon), `active`. ' +
  'A checkout credits the creator through its `creator_code` field, a `coupon_code` equal to the code, or a ' +
  'store page visited with `?ref=CODE`. A refund takes its share back out of `revenue` and `commission` ' +
  '(in proportion), a dispute takes back what is left.';

export const merchantCreatorRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/creators',
    interface: 'merchant',
    operationId: 'merchantListCreators',
    summary: 'List creators',
    description: 'Newest first (at most 1,000), each with its paid orders, revenue and commission.',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The creators.', { type: 'array', items: Creator }) },
    handler: (ctx) => listCreators(ctx.deps.knex, ctx.state.store!.id),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/creators/payouts.csv',
    interface: 'merchant',
    operationId: 'merchantCreatorPayouts',
    summary: 'Creator payout report (CSV)',
    description:
      'One line per creator and month (UTC): `creator_id,name,code,month,orders,revenue,commission,currency`, ' +
      'the commission owed net of refunds and disputes. `month` (YYYY-MM) keeps one month. UTF-8 with a byte ' +
      'order mark, CRLF; a text cell that a spreadsheet could run as a formula starts with an apostrophe.',
    guards: merchantGuards,
    request: { query: csvQuery },
    responses: {
      200: { description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } },
    },
    handler: async (ctx, { query }) => {
      const store = ctx.state.store!;
      const body = await payoutCsv(ctx.deps.knex, store.id, query.month);
      ctx.status = 200;
      ctx.type = 'text/csv; charset=utf-8';
      ctx.attachment(`creator-payouts-${store.id}${query.month ? `-${query.month}` : ''}.csv`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = body;
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/creators/{id}',
    interface: 'merchant',
    operationId: 'merchantGetCreator',
    summary: 'Creator details',
    description: '`orders` (paid orders credited), `revenue` and `commission` (net of refunds and disputes).',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('The creator.', Creator), 404: notFound },
    handler: (ctx, { params }) => creatorDetail(ctx.deps.knex, ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/creators',
    interface: 'merchant',
    operationId: 'merchantCreateCreator',
    summary: 'Create a creator',
    description: `${RULES} The answer carries \`page_url\`, the creator’s private page, once.`,
    guards: merchantGuards,
    request: {
      body: createBody,
      example: { name: 'Noura Plays', code: 'NOURA', commission_percent: 10 },
    },
    responses: { 201: merchantOk('The creator, with its private page address.', CreatedCreator) },
    handler: async (ctx, { body }) =>
      reply(
        await createCreator(
          ctx.deps.knex,
          actorOf(ctx),
          ctx.state.store!.id,
          body,
          ctx.deps.config.publicBaseUrl,
        ),
        { status: 201, message: 'Creator created' },
      ),
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/creators/{id}',
    interface: 'merchant',
    operationId: 'merchantUpdateCreator',
    summary: 'Update a creator',
    description: `Any of the creation keys; a key left out keeps its value. A new commission applies to orders paid from now on. ${RULES}`,
    guards: merchantGuards,
    request: { params: idParams, body: patchBody, example: { commission_percent: 12.5 } },
    responses: { 200: merchantOk('The creator.', Creator), 404: notFound },
    handler: async (ctx, { params, body }) =>
      reply(await updateCreator(ctx.deps.knex, actorOf(ctx), ctx.state.store!.id, params.id, body), {
        message: 'Creator updated',
      }),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/creators/{id}/page',
    interface: 'merchant',
    operationId: 'merchantRotateCreatorPage',
    summary: 'New private page address for a creator',
    description: 'The old address stops working at once; the new one is in `page_url`.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk(
        'The new address.',
        obj({ id: { type: 'integer' }, page_url: { type: 'string', format: 'uri' } }),
      ),
      404: notFound,
    },
    handler: async (ctx, { params }) =>
      reply(
        await rotateCreatorPage(
          ctx.deps.knex,
          actorOf(ctx),
          ctx.state.store!.id,
          params.id,
          ctx.deps.config.publicBaseUrl,
        ),
        { message: 'Creator page address rotated' },
      ),
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/creators/{id}',
    interface: 'merchant',
    operationId: 'merchantDeleteCreator',
    summary: 'Delete a creator',
    description:
      'A creator with no orders is deleted (`deleted: true`); one with a ledger is deactivated instead ' +
      '(`deleted: false`, `active: false`): its code credits nobody, its payout lines stay.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk(
        'Deleted or deactivated.',
        obj({ id: { type: 'integer' }, deleted: { type: 'boolean' }, active: { type: 'boolean' } }),
      ),
      404: notFound,
    },
    handler: async (ctx, { params }) => {
      const out = await deleteCreator(ctx.deps.knex, actorOf(ctx), ctx.state.store!.id, params.id);
      return reply(out, { message: out.deleted ? 'Creator deleted' : 'Creator has orders: deactivated' });
    },
  }),
];
