import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import { noteStoreContentChangedOn } from './cache';
import type { CategoryInput } from './schema';
import { type Actor, diff, recordAudit } from '../audit';

/** Categories written through the Merchant API. A slug is unique in its store (422 naming `slug`). */

export const CATEGORY_NOT_FOUND = 'Category not found';
const SLUG_TAKEN = 'is already used by another category of this store';

export interface CategoryView {
  id: number;
  name: string;
  name_ar: string | null;
  description: string | null;
  description_ar: string | null;
  slug: string;
  position: number;
  product_count: number;
  created_at: string;
}

async function view(knex: Knex, storeId: number, id: number): Promise<CategoryView> {
  const row = await knex('categories as c')
    .where({ 'c.id': id, 'c.store_id': storeId })
    .first(
      'c.*',
      knex.raw(
        '(select count(*)::int from product_categories pc where pc.category_id = c.id) as product_count',
      ),
    );
  if (!row) throw new NotFoundError(CATEGORY_NOT_FOUND);
  return {
    id: Number(row.id),
    name: row.name,
    name_ar: row.name_ar ?? null,
    description: row.description ?? null,
    description_ar: row.description_ar ?? null,
    slug: row.slug,
    position: Number(row.position),
    product_count: Number(row.product_count),
    created_at: new Date(row.created_at).toISOString(),
  };
}

async function checkSlug(trx: Knex, storeId: number, slug: string, except: number | null): Promise<void> {
  const holder = await trx('categories')
    .where({ store_id: storeId, slug })
    .modify((q) => (except === null ? q : q.whereNot('id', except)))
    .first('id');
  if (holder) throw ValidationError.field('slug', SLUG_TAKEN);
}

const asSlugConflict = (err: unknown): unknown =>
  (err as { code?: string }).code === '23505' ? ValidationError.field('slug', SLUG_TAKEN) : err;

export const categoryDetail = view;

export async function createCategory(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  storeId: number,
  input: CategoryInput,
): Promise<CategoryView> {
  const id = await deps
    .tx(async ({ trx, bump }) => {
      await checkSlug(trx, storeId, input.slug, null);
      const position =
        input.position ??
        Number((await trx('categories').where('store_id', storeId).max('position as p').first())?.p ?? -1) +
          1;
      const [row] = await trx('categories')
        .insert({
          store_id: storeId,
          name: input.name,
          name_ar: input.name_ar || null,
          description: input.description || null,
          description_ar: input.description_ar || null,
          slug: input.slug,
          position,
        })
        .returning('id');
      const categoryId = Number((row as { id: number }).id);
      await recordAudit(trx, actor, 'category.created', { type: 'category', id: categoryId }, { ...input });
      noteStoreContentChangedOn({ bump }, storeId);
      return categoryId;
    })
    .catch((err: unknown) => {
      throw asSlugConflict(err);
    });
  return view(deps.knex, storeId, id);
}

export async function updateCategory(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  storeId: number,
  categoryId: number,
  patch: Partial<CategoryInput>,
): Promise<CategoryView> {
  await deps
    .tx(async ({ trx, bump }) => {
      const row = await trx('categories').where({ id: categoryId, store_id: storeId }).forUpdate().first();
      if (!row) throw new NotFoundError(CATEGORY_NOT_FOUND);
      if (patch.slug !== undefined) await checkSlug(trx, storeId, patch.slug, categoryId);
      const changes = diff(row, patch);
      if (Object.keys(changes).length === 0) return;
      await trx('categories').where('id', categoryId).update(patch);
      await recordAudit(trx, actor, 'category.updated', { type: 'category', id: categoryId }, changes);
      noteStoreContentChangedOn({ bump }, storeId);
    })
    .catch((err: unknown) => {
      throw asSlugConflict(err);
    });
  return view(deps.knex, storeId, categoryId);
}

/** Deletes the category; its products stay, without it. */
export async function deleteCategory(
  deps: TxDeps,
  actor: Actor,
  storeId: number,
  categoryId: number,
): Promise<void> {
  await deps.tx(async ({ trx, bump }) => {
    const deleted = await trx('categories').where({ id: categoryId, store_id: storeId }).delete();
    if (deleted === 0) throw new NotFoundError(CATEGORY_NOT_FOUND);
    await recordAudit(trx, actor, 'category.deleted', { type: 'category', id: categoryId }, {});
    noteStoreContentChangedOn({ bump }, storeId);
  });
}
