import Joi from 'joi';
import { categoryKeys, type CategoryInput } from '../../../shared/services/catalogue/schema';
import { listCategories } from '../../../shared/services/catalogue/read';
import {
  categoryDetail,
  createCategory,
  deleteCategory,
  updateCategory,
} from '../../../shared/services/catalogue/categories';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, idParams, listQuery, PAGINATION_NOTE, pageBody } from '../common';
import { CategoryDetail, CategorySummary, merchantOk, merchantRefused, pageOf } from '../responses';

const createBody = Joi.object<CategoryInput>(categoryKeys('create')).required();
const patchBody = Joi.object<Partial<CategoryInput>>(categoryKeys('patch'))
  .min(1)
  .required()
  .messages({ 'object.min': 'name at least one of name, slug, position' });
const notFound = merchantRefused('not_found', 'No such category in this store.', 'Category not found');

export const merchantCategoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/categories',
    interface: 'merchant',
    operationId: 'merchantListCategories',
    summary: 'List categories (paginated)',
    description: `With the number of products in each. ${PAGINATION_NOTE}`,
    guards: merchantGuards,
    request: { query: listQuery<object>({}) },
    responses: { 200: merchantOk('One page of categories.', pageOf(CategorySummary)) },
    handler: async (ctx, { query }) =>
      pageBody(
        await ctx.deps.readKnex.run(ctx.state.store!.id, (knex) =>
          listCategories(knex, ctx.state.store!.id, query),
        ),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/categories/{id}',
    interface: 'merchant',
    operationId: 'merchantGetCategory',
    summary: 'Category details',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('The category.', CategoryDetail), 404: notFound },
    handler: (ctx, { params }) => categoryDetail(ctx.deps.knex, ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/categories',
    interface: 'merchant',
    operationId: 'merchantCreateCategory',
    summary: 'Create a category',
    description:
      '`name`, `slug` (lower-case letters and digits separated by - or _, unique in the store: a slug ' +
      'already used is a 422 naming `slug`) and optionally `position` (default: after the last).',
    guards: merchantGuards,
    request: { body: createBody, example: { name: 'Games', slug: 'games' } },
    responses: { 201: merchantOk('The category.', CategoryDetail) },
    handler: async (ctx, { body }) =>
      reply(await createCategory(ctx.deps, actorOf(ctx), ctx.state.store!.id, body), {
        status: 201,
        message: 'Category created',
      }),
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/categories/{id}',
    interface: 'merchant',
    operationId: 'merchantUpdateCategory',
    summary: 'Rename, re-slug or move a category',
    guards: merchantGuards,
    request: { params: idParams, body: patchBody, example: { name: 'PC games' } },
    responses: { 200: merchantOk('The category.', CategoryDetail), 404: notFound },
    handler: async (ctx, { params, body }) =>
      reply(await updateCategory(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.id, body), {
        message: 'Category updated',
      }),
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/categories/{id}',
    interface: 'merchant',
    operationId: 'merchantDeleteCategory',
    summary: 'Delete a category',
    description: 'Its products stay, without this category.',
    guards: merchantGuards,
    request: { params: idParams },
    responses: { 200: merchantOk('Deleted.', { type: 'null' }), 404: notFound },
    handler: async (ctx, { params }) => {
      await deleteCategory(ctx.deps, actorOf(ctx), ctx.state.store!.id, params.id);
      return reply(null, { message: 'Category deleted' });
    },
  }),
];
