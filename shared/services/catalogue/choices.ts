import type { Knex } from 'knex';

/** Small catalogue reads for the merchant dashboard's forms and previews (docs/dashboard.md). */

/** The store's categories for the product form's checkboxes: by position, at most 200. */
export async function categoryChoices(knex: Knex, storeId: number): Promise<{ id: number; name: string }[]> {
  const rows = await knex('categories')
    .where('store_id', storeId)
    .orderBy(['position', 'id'])
    .limit(200)
    .select('id', 'name');
  return rows.map((r) => ({ id: Number(r.id), name: String(r.name) }));
}

/** A product of the store on sale, for the live widget preview: the newest one. */
export async function newestProductOnSale(
  knex: Knex,
  storeId: number,
): Promise<{ productId: number; productName: string } | null> {
  const row = await knex('products')
    .where({ store_id: storeId, active: true })
    .whereNull('archived_at')
    .orderBy('id', 'desc')
    .first<{ id: number; name: string } | undefined>('id', 'name');
  return row ? { productId: Number(row.id), productName: row.name } : null;
}

/** A product's name by id ('' when it is gone), for a page about something sold with it. */
export async function productName(knex: Knex, productId: number): Promise<string> {
  const row = await knex('products').where({ id: productId }).first<{ name: string } | undefined>('name');
  return String(row?.name ?? '');
}

/** The store's product by id with its name, or null (another store's product is not found). */
export async function productNamed(
  knex: Knex,
  storeId: number,
  productId: number,
): Promise<{ id: number; name: string } | null> {
  const row = await knex('products')
    .where({ id: productId, store_id: storeId })
    .first<{ id: number; name: string } | undefined>('id', 'name');
  return row ? { id: Number(row.id), name: String(row.name) } : null;
}
