import Joi from 'joi';
import {
  listProductFiles,
  removeProductFile,
  renameProductFile,
} from '../../../shared/services/files/catalogue';
import { orderDownloads, resetDownloads } from '../../../shared/services/files/downloads';
import {
  addProductFile,
  admitUpload,
  cleanFileName,
  type UploadLimits,
} from '../../../shared/services/files/upload';
import type { AppContext } from '../../context';
import { merchantGuards } from '../../guards';
import { defineRoute, reply } from '../../http/route';
import { actorOf, id, idParams } from '../common';
import { merchantOk, merchantRefused, obj } from '../responses';
import { receiveFile } from './receive';

/**
 * A product's files (the buyer's downloads) and an order's downloads, on the Merchant API
 * (docs/downloads.md). Uploads stream into the storage driver as they arrive; the answer carries the
 * size and SHA-256 the platform counted.
 */

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const time = { type: 'string', format: 'date-time' } as const;

const ProductFile = obj({
  id: int,
  name: str,
  size: { type: 'integer', minimum: 0, description: 'Bytes.' },
  sha256: {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
    description: 'SHA-256 of the content, lowercase hex.',
  },
  replaces_id: { type: ['integer', 'null'], description: 'The file this version replaced.' },
  created_at: time,
});

const ItemDownloads = obj({
  order_item_id: int,
  product_id: { type: ['integer', 'null'] },
  name: str,
  download_limit: { type: 'integer', description: 'Per file; 0: no limit.' },
  files: {
    type: 'array',
    items: obj({
      file_id: int,
      name: str,
      size: int,
      url: {
        type: 'string',
        description: 'The buyer’s download address (empty once the buyer no longer gets it).',
      },
      downloads_counted: int,
      downloads: { type: 'array', items: obj({ at: time, ip: str, counted: { type: 'boolean' } }) },
    }),
  },
});

const productNotFound = merchantRefused(
  'not_found',
  'No such product (or file) in this store.',
  'Product not found',
);

const fileParams = Joi.object<{ id: number; fileId: number }, true>({
  id: id().required().description('The product id.'),
  fileId: id().required().description('The file id.'),
});

const orderParams = Joi.object<{ id: number }, true>({ id: id().required().description('The order id.') });

const multipart = {
  body: Joi.object<Record<string, never>, true>({}).unknown(true),
  bodyTypes: ['multipart/form-data'] as const,
};

const limitsOf = (ctx: AppContext): UploadLimits => ctx.deps.config.storage;

const declaredBytes = (ctx: AppContext): number | undefined => {
  const length = Number(ctx.get('content-length'));
  return Number.isSafeInteger(length) && length > 0 ? length : undefined;
};

const UPLOAD_NOTE =
  'multipart/form-data with the file in the part named `file`: any type, up to `MAX_UPLOAD_BYTES` (2 GiB ' +
  'by default), streamed into storage as it arrives. Limits per store: 50 files a product, 2,000 files ' +
  'and `STORE_STORAGE_BYTES` (50 GiB by default) of files on sale; past one, a 422 naming `file`. Buyers ' +
  'get the bytes as `application/octet-stream` attachments, whatever the name says.';

export const merchantFileRoutes = [
  defineRoute({
    method: 'post',
    path: '/shawarma/products/{id}/files',
    interface: 'merchant',
    operationId: 'merchantUploadProductFile',
    summary: 'Upload a file to a product',
    description: `${UPLOAD_NOTE} Buyers of the product get a download address for it (past buyers too).`,
    guards: merchantGuards,
    request: { params: idParams, ...multipart },
    responses: { 201: merchantOk('The file as stored.', ProductFile), 404: productNotFound },
    handler: async (ctx, { params }) => {
      const actor = actorOf(ctx);
      const limits = limitsOf(ctx);
      await admitUpload(ctx.deps.knex, actor.storeId, params.id, limits, {
        declaredBytes: declaredBytes(ctx),
      });
      const file = await receiveFile(ctx, limits, (upload) =>
        addProductFile(ctx.deps, actor, params.id, limits, upload),
      );
      return reply(file, { status: 201, message: 'File uploaded' });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/products/{id}/files',
    interface: 'merchant',
    operationId: 'merchantListProductFiles',
    summary: 'List a product’s files',
    description: 'The files on the product now, oldest first (replaced and removed ones left out).',
    guards: merchantGuards,
    request: { params: idParams },
    responses: {
      200: merchantOk('The files.', { type: 'array', items: ProductFile }),
      404: productNotFound,
    },
    handler: (ctx, { params }) => listProductFiles(ctx.deps.knex, ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'put',
    path: '/shawarma/products/{id}/files/{fileId}',
    interface: 'merchant',
    operationId: 'merchantReplaceProductFile',
    summary: 'Replace a file with a new version',
    description:
      `${UPLOAD_NOTE} Orders placed from now on get the new version; past buyers keep the version they ` +
      'got, unless `update_for_everyone=1` (query): then every buyer gets the new one and the old is ' +
      'withdrawn.',
    guards: merchantGuards,
    request: {
      params: fileParams,
      query: Joi.object<{ update_for_everyone: boolean }, true>({
        update_for_everyone: Joi.boolean().truthy('1').falsy('0').default(false),
      }),
      ...multipart,
    },
    responses: { 201: merchantOk('The new version.', ProductFile), 404: productNotFound },
    handler: async (ctx, { params, query }) => {
      const actor = actorOf(ctx);
      const limits = limitsOf(ctx);
      await admitUpload(ctx.deps.knex, actor.storeId, params.id, limits, {
        replaces: params.fileId,
        declaredBytes: declaredBytes(ctx),
      });
      const file = await receiveFile(ctx, limits, (upload) =>
        addProductFile(ctx.deps, actor, params.id, limits, upload, {
          replaces: params.fileId,
          forEveryone: query.update_for_everyone,
        }),
      );
      return reply(file, { status: 201, message: 'File replaced' });
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/shawarma/products/{id}/files/{fileId}',
    interface: 'merchant',
    operationId: 'merchantRenameProductFile',
    summary: 'Rename a file',
    description: 'The name buyers see and download the file as (1 to 255 characters, no path).',
    guards: merchantGuards,
    request: {
      params: fileParams,
      body: Joi.object<{ name: string }, true>({
        name: Joi.string()
          .trim()
          .min(1)
          .max(255)
          .custom((value: string, helpers) =>
            cleanFileName(value) === value
              ? value
              : helpers.message({
                  custom: 'must be a file name without a path, quotes or control characters',
                }),
          )
          .required(),
      }),
      example: { name: 'guide-v2.pdf' },
    },
    responses: { 200: merchantOk('The file.', ProductFile), 404: productNotFound },
    handler: async (ctx, { params, body }) =>
      reply(await renameProductFile(ctx.deps, actorOf(ctx), params.id, params.fileId, body.name), {
        message: 'File renamed',
      }),
  }),
  defineRoute({
    method: 'delete',
    path: '/shawarma/products/{id}/files/{fileId}',
    interface: 'merchant',
    operationId: 'merchantDeleteProductFile',
    summary: 'Take a file off a product',
    description:
      'Later buyers no longer get it; past buyers keep their download addresses (the bytes stay stored for them).',
    guards: merchantGuards,
    request: { params: fileParams },
    responses: { 200: merchantOk('The file taken off.', ProductFile), 404: productNotFound },
    handler: async (ctx, { params }) =>
      reply(await removeProductFile(ctx.deps, actorOf(ctx), params.id, params.fileId), {
        message: 'File removed',
      }),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/downloads/{id}',
    interface: 'merchant',
    operationId: 'merchantOrderDownloads',
    summary: 'An order’s downloads',
    description:
      'The order `{id}`’s downloads, per order item and file: the buyer’s download address, the downloads that count against the ' +
      'product’s `download_limit`, and every download served (when, from which IP; resumes do not count).',
    guards: merchantGuards,
    request: { params: orderParams },
    responses: {
      200: merchantOk('The order’s items and their downloads.', { type: 'array', items: ItemDownloads }),
      404: merchantRefused('not_found', 'No such order in this store.', 'Order not found'),
    },
    handler: (ctx, { params }) => orderDownloads(ctx.deps, ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/shawarma/downloads/{id}/reset',
    interface: 'merchant',
    operationId: 'merchantResetDownloads',
    summary: 'Reset a buyer’s download count',
    description:
      'The item’s downloads stop counting, so the buyer may download each file `download_limit` times ' +
      'again; the history stays. `order_item_id` must be an item of this order.',
    guards: merchantGuards,
    request: {
      params: orderParams,
      body: Joi.object<{ order_item_id: number }, true>({ order_item_id: id().required() }),
      example: { order_item_id: 12 },
    },
    responses: {
      200: merchantOk('Reset.', obj({ order_item_id: int, reset: int })),
      404: merchantRefused('not_found', 'No such order in this store.', 'Order not found'),
    },
    handler: async (ctx, { params, body }) =>
      reply(await resetDownloads(ctx.deps, actorOf(ctx), params.id, body.order_item_id), {
        message: 'Downloads reset',
      }),
  }),
];
