import Joi from 'joi';
import { NotFoundError, ValidationError } from '../../../../shared/errors';
import { dashboardActor, fieldErrors, formBody, guardedAnswers } from '../../forms';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { categoryKeys, type CategoryInput } from '../../../../shared/services/catalogue/schema';
import { createCategory, deleteCategory } from '../../../../shared/services/catalogue/categories';
import { listCategories } from '../../../../shared/services/catalogue/read';
import { sendPage } from '../../layout';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';
import { categoriesView } from './view';

/** The categories page: add and delete the store's product categories. */

async function categoriesPage(
  ctx: AppContext,
  status: number,
  opts: Parameters<typeof categoriesView>[2],
): Promise<void> {
  const { store, shell } = dashboardOf(ctx);
  const list = await listCategories(ctx.deps.knex, store.id, { page: 1, per_page: 100 });
  const items = list.items.map((c) => ({
    id: Number(c.id),
    name: String(c.name),
    name_ar: c.name_ar ? String(c.name_ar) : null,
    slug: String(c.slug),
    product_count: Number(c.product_count ?? 0),
  }));
  sendPage(ctx, { status, html: categoriesView(shell, items, opts) });
}

export const dashboardCategoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/merchant/categories',
    interface: 'platform',
    operationId: 'dashboardCategories',
    summary: 'Merchant dashboard: categories',
    description: 'The store’s categories with their product counts, the add form and delete.',
    guards: signedIn('products.edit'),
    request: {
      query: Joi.object<{ done?: string; lang?: string }, true>({
        done: Joi.string().valid('added', 'deleted'),
        lang: Joi.string().valid('ar', 'en'),
      }),
    },
    responses: { 200: htmlResponse('The categories.'), ...guardedAnswers },
    handler: async (ctx, { query }) => {
      const { shell } = dashboardOf(ctx);
      const notice =
        query.done === 'added'
          ? shell.t.categoryAdded
          : query.done === 'deleted'
            ? shell.t.categoryDeleted
            : null;
      await categoriesPage(ctx, 200, { notice, errors: {}, name: '', name_ar: '', slug: '' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/categories',
    interface: 'platform',
    operationId: 'dashboardCategoryCreate',
    summary: 'Merchant dashboard: add a category',
    description:
      'Form fields `name`, `name_ar` (optional), `slug`, checked as `POST /shawarma/categories` checks them. 303.',
    guards: signedIn('products.edit'),
    request: formBody({
      name: Joi.string().allow('').max(400),
      name_ar: Joi.string().allow('').max(400),
      slug: Joi.string().allow('').max(400),
    }),
    responses: {
      303: redirectResponse('Added.'),
      422: htmlResponse('The form again, naming each bad field.'),
      ...guardedAnswers,
    },
    handler: async (ctx) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const name = formField(ctx, 'name').trim();
      const nameAr = formField(ctx, 'name_ar').trim();
      const slug = formField(ctx, 'slug').trim();
      const again = (errors: Record<string, string[]>) =>
        categoriesPage(ctx, 422, {
          notice: null,
          errors: fieldErrors(shell.locale, errors),
          name,
          name_ar: nameAr,
          slug,
        });
      // An empty Arabic name is no Arabic name: readers fall back to `name` (docs/store-pages.md).
      const { value, error } = Joi.object<CategoryInput>(categoryKeys('create')).validate(
        { name, ...(nameAr ? { name_ar: nameAr } : {}), slug },
        { abortEarly: false },
      );
      if (error) return again(Object.fromEntries(error.details.map((d) => [String(d.path[0]), [d.message]])));
      try {
        await createCategory(ctx.deps, dashboardActor(store.id, s.user), store.id, value);
      } catch (err) {
        if (err instanceof ValidationError) return again(err.errors);
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/categories?done=added' });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/categories/{categoryId}/delete',
    interface: 'platform',
    operationId: 'dashboardCategoryDelete',
    summary: 'Merchant dashboard: delete a category',
    description: 'The category goes; its products stay. 303.',
    guards: signedIn('products.edit'),
    request: {
      params: Joi.object({
        categoryId: Joi.number().integer().min(1).max(2_147_483_647).required(),
      }) as Joi.ObjectSchema<{ categoryId: number }>,
      ...formBody({}),
    },
    responses: {
      303: redirectResponse('Deleted.'),
      404: htmlResponse('No such category.'),
      ...guardedAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      try {
        await deleteCategory(ctx.deps, dashboardActor(store.id, s.user), store.id, params.categoryId);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, { status: 303, location: '/merchant/categories?done=deleted' });
    },
  }),
];
