import crypto from 'node:crypto';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { Knex } from 'knex';
import { ValidationError } from '../../errors';
import type { StorageDriver } from '../../storage';
import type { TxDeps } from '../../unit-of-work';
import { type Actor, recordAudit } from '../audit';
import { fileView, liveFileOf, productOfStore, type ProductFileRow, type ProductFileView } from './catalogue';

/**
 * A merchant's file, streamed into storage (docs/downloads.md): the bytes go from the request to the
 * driver in small chunks, hashed (SHA-256) and counted on the way, and never sit whole in memory or on the
 * web process's disk. The row is written only once the driver has the whole file; a refused or broken
 * upload leaves neither bytes nor row.
 *
 * Limits: MAX_UPLOAD_BYTES per file, STORE_STORAGE_BYTES for the live files of a store, and the counts
 * below. They are checked from the declared length before a byte is read, and again under a per-store lock
 * once the file is in, so concurrent uploads cannot pass them together.
 */

export const MAX_FILES_PER_PRODUCT = 50;
export const MAX_FILES_PER_STORE = 2000;

export interface UploadLimits {
  readonly maxUploadBytes: number;
  readonly storeBytes: number;
}

const sizeText = (bytes: number): string =>
  bytes >= 1024 ** 3
    ? `${+(bytes / 1024 ** 3).toFixed(2)} GiB`
    : bytes >= 1024 ** 2
      ? `${+(bytes / 1024 ** 2).toFixed(2)} MiB`
      : `${bytes} bytes`;

export const tooLarge = (limits: UploadLimits): ValidationError =>
  ValidationError.field('file', `The file may not be larger than ${sizeText(limits.maxUploadBytes)}.`);

/** Counts and hashes what passes; fails the stream once more than `maxBytes` went through. */
export class HashingCounter extends Transform {
  bytes = 0;
  private readonly hash = crypto.createHash('sha256');

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(new FileTooLargeError());
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

export class FileTooLargeError extends Error {
  constructor() {
    super('file too large');
  }
}

async function checkRoom(
  knex: Knex | Knex.Transaction,
  storeId: number,
  productId: number,
  adding: number,
  limits: UploadLimits,
  replacing: boolean,
): Promise<void> {
  const [store] = (await knex('product_files')
    .where({ store_id: storeId, withdrawn: false })
    .whereNull('removed_at')
    .select(
      knex.raw('count(*)::int as files'),
      knex.raw('coalesce(sum(size), 0)::bigint as bytes'),
      knex.raw('count(*) filter (where product_id = ?)::int as on_product', [productId]),
    )) as { files: number; bytes: string; on_product: number }[];
  const freed = replacing ? 1 : 0;
  if (store!.on_product - freed >= MAX_FILES_PER_PRODUCT)
    throw ValidationError.field('file', `A product may have at most ${MAX_FILES_PER_PRODUCT} files.`);
  if (store!.files - freed >= MAX_FILES_PER_STORE)
    throw ValidationError.field('file', `A store may have at most ${MAX_FILES_PER_STORE} files.`);
  if (Number(store!.bytes) + adding > limits.storeBytes)
    throw ValidationError.field(
      'file',
      `The store's files may take at most ${sizeText(limits.storeBytes)} (${sizeText(Number(store!.bytes))} used).`,
    );
}

/** Checks before the body is read: the product (and the file replaced) is the store's, and there is room. */
export async function admitUpload(
  knex: Knex,
  storeId: number,
  productId: number,
  limits: UploadLimits,
  opts: { replaces?: number; declaredBytes?: number },
): Promise<void> {
  await productOfStore(knex, storeId, productId);
  if (opts.replaces !== undefined) await liveFileOf(knex, storeId, productId, opts.replaces);
  if (opts.declaredBytes !== undefined && opts.declaredBytes > limits.maxUploadBytes + 64 * 1024)
    throw tooLarge(limits);
  await checkRoom(knex, storeId, productId, 0, limits, opts.replaces !== undefined);
}

/** A valid, safe display name: the uploaded name without any path, control characters or quotes. */
export function cleanFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  // Control and bidirectional-override characters could make a name read as another.
  const cleaned = [...base]
    .filter((ch) => {
      const c = ch.codePointAt(0)!;
      return (
        c > 0x1f && c !== 0x7f && !(c >= 0x202a && c <= 0x202e) && !(c >= 0x2066 && c <= 0x2069) && ch !== '"'
      );
    })
    .join('')
    .trim();
  return cleaned.slice(0, 255) || 'file';
}

export async function addProductFile(
  deps: TxDeps & { knex: Knex; storage: StorageDriver },
  actor: Actor,
  productId: number,
  limits: UploadLimits,
  upload: { name: string; body: Readable },
  opts: { replaces?: number; forEveryone?: boolean } = {},
): Promise<ProductFileView> {
  const key = `files/${actor.storeId}/${crypto.randomBytes(16).toString('hex')}`;
  const counter = new HashingCounter(limits.maxUploadBytes);
  // pipeline, not pipe: a request cut short (or refused by the parser) fails the counter, and so the write.
  pipeline(upload.body, counter, () => undefined);
  try {
    await deps.storage.write(key, counter, 'application/octet-stream');
  } catch (err) {
    await deps.storage.delete(key).catch(() => undefined);
    if (err instanceof FileTooLargeError) throw tooLarge(limits);
    throw err;
  }
  const sha256 = counter.digest();
  try {
    return await deps.tx(async ({ trx }) => {
      // One upload at a time per store past this point, so two cannot both take the last room.
      await trx.raw('select pg_advisory_xact_lock(hashtext(?), ?)', ['product_files', actor.storeId]);
      const replaced =
        opts.replaces === undefined
          ? undefined
          : await liveFileOf(trx, actor.storeId, productId, opts.replaces, true);
      await checkRoom(trx, actor.storeId, productId, counter.bytes, limits, replaced !== undefined);
      if (replaced) {
        await trx('product_files')
          .where('id', replaced.id)
          .update({
            removed_at: trx.fn.now(),
            updated_at: trx.fn.now(),
            withdrawn: Boolean(opts.forEveryone),
          });
      }
      const [row] = (await trx('product_files')
        .insert({
          store_id: actor.storeId,
          product_id: productId,
          name: cleanFileName(upload.name),
          size: counter.bytes,
          sha256,
          storage_driver: deps.storage.name,
          storage_key: key,
          replaces_id: replaced?.id ?? null,
          for_everyone: Boolean(replaced && opts.forEveryone),
        })
        .returning('*')) as ProductFileRow[];
      await recordAudit(
        trx,
        actor,
        replaced ? 'product.file_replaced' : 'product.file_uploaded',
        { type: 'product', id: productId },
        {
          [`files.${row!.id}`]: { from: replaced?.name ?? null, to: row!.name },
          ...(replaced ? { update_for_everyone: { from: null, to: Boolean(opts.forEveryone) } } : {}),
        },
      );
      return fileView(row!);
    });
  } catch (err) {
    await deps.storage.delete(key).catch(() => undefined);
    throw err;
  }
}
