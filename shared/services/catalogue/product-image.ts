import crypto from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../errors';
import type { StorageDriver } from '../../storage';
import type { TxDeps } from '../../unit-of-work';
import { noteStoreContentChangedOn } from './cache';
import { judgeUpload, MAX_UPLOAD_BYTES } from '../custom-fields/uploads';
import { type Actor, recordAudit } from '../audit';
import { PRODUCT_NOT_FOUND } from './read';

/**
 * A product's image, uploaded by the merchant and judged exactly as a buyer's image upload is (by its
 * bytes: JPG, PNG or GIF up to 10 MB, the extension agreeing with the content), stored under a key the
 * platform makes (`products/<store>-<product>-<random>.<ext>`) and served publicly at `/media/<key>`.
 */

export const MEDIA_FILE = /^\d{1,10}-\d{1,10}-[a-f0-9]{16}\.(jpg|png|gif)$/;
const MIME: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif' };

export interface IncomingImage {
  originalName: string;
  tempPath: string;
  size: number;
}

export async function setProductImage(
  deps: TxDeps & { knex: Knex; storage: StorageDriver; config: { publicBaseUrl: string } },
  actor: Actor,
  productId: number,
  image: IncomingImage | undefined,
): Promise<{ id: number; image_url: string }> {
  if (!image) throw ValidationError.field('image', 'send the image as the multipart part named "image"');
  const product = await deps
    .knex('products')
    .where({ id: productId, store_id: actor.storeId })
    .whereNull('archived_at')
    .first('id', 'image_url');
  if (!product) throw new NotFoundError(PRODUCT_NOT_FOUND);
  if (image.size > MAX_UPLOAD_BYTES)
    throw ValidationError.field('image', 'The image may not be larger than 10 MB.');
  const verdict = judgeUpload('image', image.originalName, await readFile(image.tempPath));
  if (!verdict.ok) throw ValidationError.field('image', verdict.message);
  const file = `${actor.storeId}-${productId}-${crypto.randomBytes(8).toString('hex')}.${verdict.kind}`;
  await deps.storage.put(`products/${file}`, image.tempPath, verdict.mime);
  const imageUrl = `${deps.config.publicBaseUrl}/media/products/${file}`;
  await deps.tx(async (uow) => {
    const { trx } = uow;
    await trx('products')
      .where('id', productId)
      .update({ image_url: imageUrl, version: trx.raw('version + 1'), updated_at: trx.fn.now() });
    await recordAudit(
      trx,
      actor,
      'product.image_uploaded',
      { type: 'product', id: productId },
      {
        image_url: { from: product.image_url, to: imageUrl },
      },
    );
    noteStoreContentChangedOn(uow, actor.storeId);
  });
  return { id: productId, image_url: imageUrl };
}

/** The stored image behind a `/media/products/<file>` address, or not found. */
export async function productImage(
  storage: StorageDriver,
  file: string,
): Promise<{ mime: string; body: NodeJS.ReadableStream }> {
  const match = MEDIA_FILE.exec(file);
  if (!match || !(await storage.exists(`products/${file}`))) throw new NotFoundError('Not found');
  return { mime: MIME[match[1]!]!, body: await storage.read(`products/${file}`) };
}
