import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import type { TxDeps } from '../../unit-of-work';
import { type Actor, recordAudit } from '../audit';
import { PRODUCT_NOT_FOUND } from '../catalogue/read';

/**
 * A product's files as the merchant sees them (docs/downloads.md): the versions on the product now. A file
 * taken off (or replaced) stays stored for the buyers who got it (entitlement.ts).
 */

export const FILE_NOT_FOUND = 'File not found';

export interface ProductFileRow {
  id: number;
  store_id: number;
  product_id: number;
  name: string;
  size: string | number;
  sha256: string;
  storage_driver: 'local' | 's3';
  storage_key: string;
  replaces_id: number | null;
  created_at: Date;
}

export interface ProductFileView {
  id: number;
  name: string;
  size: number;
  sha256: string;
  replaces_id: number | null;
  created_at: string;
}

export const fileView = (row: ProductFileRow): ProductFileView => ({
  id: row.id,
  name: row.name,
  size: Number(row.size),
  sha256: row.sha256,
  replaces_id: row.replaces_id,
  created_at: new Date(row.created_at).toISOString(),
});

/** The store's product, or 404 (another store's product is not found, never forbidden). */
export async function productOfStore(
  knex: Knex,
  storeId: number,
  productId: number,
): Promise<{ id: number; download_limit: number }> {
  const product = (await knex('products')
    .where({ id: productId, store_id: storeId })
    .first('id', 'download_limit')) as { id: number; download_limit: number } | undefined;
  if (!product) throw new NotFoundError(PRODUCT_NOT_FOUND);
  return product;
}

/** Files on the product now: not taken off, not replaced. */
export const liveFiles = (knex: Knex | Knex.Transaction, productId: number): Knex.QueryBuilder =>
  knex('product_files').where({ product_id: productId, withdrawn: false }).whereNull('removed_at');

export async function listProductFiles(
  knex: Knex,
  storeId: number,
  productId: number,
): Promise<ProductFileView[]> {
  await productOfStore(knex, storeId, productId);
  const rows = (await liveFiles(knex, productId).orderBy('id')) as ProductFileRow[];
  return rows.map(fileView);
}

/** One live file of the store's product, or 404. */
export async function liveFileOf(
  knex: Knex | Knex.Transaction,
  storeId: number,
  productId: number,
  fileId: number,
  lock = false,
): Promise<ProductFileRow> {
  const query = liveFiles(knex, productId).where({ id: fileId, store_id: storeId }).first();
  const row = (await (lock ? query.forUpdate() : query)) as ProductFileRow | undefined;
  if (!row) throw new NotFoundError(FILE_NOT_FOUND);
  return row;
}

export async function renameProductFile(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  productId: number,
  fileId: number,
  name: string,
): Promise<ProductFileView> {
  await productOfStore(deps.knex, actor.storeId, productId);
  return deps.tx(async ({ trx }) => {
    const row = await liveFileOf(trx, actor.storeId, productId, fileId, true);
    const [updated] = (await trx('product_files')
      .where('id', row.id)
      .update({ name, updated_at: trx.fn.now() })
      .returning('*')) as ProductFileRow[];
    await recordAudit(
      trx,
      actor,
      'product.file_renamed',
      { type: 'product', id: productId },
      {
        [`files.${fileId}.name`]: { from: row.name, to: name },
      },
    );
    return fileView(updated!);
  });
}

/** Takes a file off the product: later buyers no longer get it, past buyers keep their downloads. */
export async function removeProductFile(
  deps: TxDeps & { knex: Knex },
  actor: Actor,
  productId: number,
  fileId: number,
): Promise<ProductFileView> {
  await productOfStore(deps.knex, actor.storeId, productId);
  return deps.tx(async ({ trx }) => {
    const row = await liveFileOf(trx, actor.storeId, productId, fileId, true);
    await trx('product_files')
      .where('id', row.id)
      .update({ removed_at: trx.fn.now(), updated_at: trx.fn.now() });
    await recordAudit(
      trx,
      actor,
      'product.file_removed',
      { type: 'product', id: productId },
      {
        [`files.${fileId}`]: { from: row.name, to: null },
      },
    );
    return fileView(row);
  });
}
