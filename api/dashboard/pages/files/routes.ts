import Joi from 'joi';
import { DomainError, NotFoundError, ValidationError } from '../../../../shared/errors';
import { productNamed } from '../../../../shared/services/catalogue/choices';
import { listProductFiles, removeProductFile } from '../../../../shared/services/files/catalogue';
import { addProductFile, admitUpload } from '../../../../shared/services/files/upload';
import type { AppContext, AppMiddleware } from '../../../context';
import { defineRoute } from '../../../http/route';
import { receiveFile } from '../../../merchant/files/receive';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { sendPage } from '../../layout';
import { dashboardOf, messagePage, signedIn } from '../../session';
import { dashboardActor, pageScriptRoute } from '../../forms';
import { FILES_SCRIPT } from './script';
import { FILES_TEXT } from './strings';
import { filesView } from './view';

/**
 * The dashboard's files page of a product (docs/downloads.md): the files, a remove button each, and an
 * upload form whose script shows the upload's progress. The upload streams into storage like the Merchant
 * API's; its form token travels in the address, since the body is not read before the guard.
 */

const productParams = Joi.object({
  productId: Joi.number().integer().min(1).max(2_147_483_647).required(),
}) as Joi.ObjectSchema<{ productId: number }>;

const fileParams = Joi.object({
  productId: Joi.number().integer().min(1).max(2_147_483_647).required(),
  fileId: Joi.number().integer().min(1).max(2_147_483_647).required(),
}) as Joi.ObjectSchema<{ productId: number; fileId: number }>;

const pageQuery = Joi.object({
  lang: Joi.string().valid('ar', 'en'),
  done: Joi.string().valid('uploaded', 'removed'),
});

/** The session guard's form token, taken from the address instead of a body it must not read first. */
const tokenFromAddress: AppMiddleware = (ctx, next) => {
  const token = ctx.query._csrf;
  ctx.request.body = { _csrf: typeof token === 'string' ? token : '' };
  return next();
};

const wantsJson = (ctx: AppContext): boolean => ctx.accepts('html', 'json') === 'json';

async function page(
  ctx: AppContext,
  productId: number,
  status: number,
  notice: string | null,
  error: string | null,
) {
  const { shell, store } = dashboardOf(ctx);
  const product = await productNamed(ctx.deps.knex, store.id, productId);
  if (!product) return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
  const files = await listProductFiles(ctx.deps.knex, store.id, product.id);
  sendPage(ctx, {
    status,
    html: filesView(shell, product, files, {
      maxUploadBytes: ctx.deps.config.storage.maxUploadBytes,
      notice,
      error,
    }),
  });
}

const refusalText = (err: DomainError): string =>
  err instanceof ValidationError ? Object.values(err.errors).flat().join(' ') : err.message;

export const dashboardFileRoutes = [
  pageScriptRoute({
    path: '/merchant/assets/files.js',
    operationId: 'dashboardFilesScript',
    summary: 'Merchant dashboard: the files page’s script',
    description: 'Uploads the chosen file with a progress bar. The page works without it.',
    source: FILES_SCRIPT,
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/products/{productId}/files',
    interface: 'platform',
    operationId: 'dashboardProductFiles',
    summary: 'Merchant dashboard: a product’s files',
    description: 'The files buyers get, a remove button each, and an upload form with a progress bar.',
    guards: signedIn('products.edit'),
    request: { params: productParams, query: pageQuery },
    responses: {
      200: htmlResponse('The files page.'),
      404: htmlResponse('No such product in this store.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { params, query }) => {
      const t = FILES_TEXT[dashboardOf(ctx).shell.locale];
      const done = (query as { done?: string }).done;
      const notice = done === 'uploaded' ? t.uploaded_ok : done === 'removed' ? t.removed : null;
      await page(ctx, params.productId, 200, notice, null);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products/{productId}/files',
    interface: 'platform',
    operationId: 'dashboardProductFileUpload',
    summary: 'Merchant dashboard: upload a file to a product',
    description:
      'multipart/form-data, the file in the part `file`, streamed into storage; the form token `_csrf` in ' +
      'the query. The page answers with a redirect to the files page (303), or the stored file as JSON ' +
      '(201) for `Accept: application/json` (the page’s script). Refused: the page again (422), or JSON.',
    guards: signedIn('products.edit', { readBody: tokenFromAddress }),
    request: {
      params: productParams,
      query: Joi.object({ _csrf: Joi.string().max(200), lang: Joi.string().valid('ar', 'en') }),
      bodyTypes: ['multipart/form-data'],
      body: Joi.object({}).unknown(true),
    },
    responses: {
      201: {
        description: 'The stored file (JSON, for the page’s script).',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['data'],
              properties: {
                data: {
                  type: 'object',
                  required: ['id', 'name', 'size', 'sha256'],
                  properties: {
                    id: { type: 'integer' },
                    name: { type: 'string' },
                    size: { type: 'integer' },
                    sha256: { type: 'string' },
                    replaces_id: { type: ['integer', 'null'] },
                    created_at: { type: 'string', format: 'date-time' },
                  },
                },
              },
            },
            example: {
              data: {
                id: 3,
                name: 'guide.pdf',
                size: 1048576,
                sha256: 'a'.repeat(64),
                replaces_id: null,
                created_at: '2026-11-27T12:00:00.000Z',
              },
            },
          },
        },
      },
      303: redirectResponse('Uploaded: back to the files page.'),
      403: htmlResponse('A missing or wrong form token, another site’s form, or a role without the right.'),
      404: htmlResponse('No such product in this store.'),
      422: {
        description: 'Refused (too large, no room): the page again saying why, or JSON.',
        content: {
          'text/html': { schema: { type: 'string' } },
          'application/json': {
            schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
          },
        },
      },
    },
    handler: async (ctx, { params }) => {
      const { store, signedIn: s } = dashboardOf(ctx);
      const actor = dashboardActor(store.id, s.user);
      const limits = ctx.deps.config.storage;
      try {
        const length = Number(ctx.get('content-length'));
        await admitUpload(ctx.deps.knex, store.id, params.productId, limits, {
          declaredBytes: Number.isSafeInteger(length) && length > 0 ? length : undefined,
        });
        const file = await receiveFile(ctx, limits, (upload) =>
          addProductFile(ctx.deps, actor, params.productId, limits, upload),
        );
        if (wantsJson(ctx)) {
          ctx.status = 201;
          ctx.body = { data: file };
          return;
        }
        sendPage(ctx, {
          status: 303,
          location: `/merchant/products/${params.productId}/files?done=uploaded`,
        });
      } catch (err) {
        if (!(err instanceof DomainError) || err instanceof NotFoundError) {
          if (err instanceof NotFoundError) ctx.req.resume();
          if (err instanceof NotFoundError && !wantsJson(ctx))
            return page(ctx, params.productId, 404, null, null);
          throw err;
        }
        ctx.req.resume();
        if (wantsJson(ctx)) {
          ctx.status = 422;
          ctx.body = { message: refusalText(err) };
          return;
        }
        await page(ctx, params.productId, 422, null, refusalText(err));
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products/{productId}/files/{fileId}/remove',
    interface: 'platform',
    operationId: 'dashboardProductFileRemove',
    summary: 'Merchant dashboard: take a file off a product',
    description: 'Form with `_csrf`. Past buyers keep the file; later buyers no longer get it.',
    guards: signedIn('products.edit'),
    request: {
      params: fileParams,
      bodyTypes: ['application/x-www-form-urlencoded'],
      body: Joi.object({ _csrf: Joi.string().max(200) }).unknown(true),
    },
    responses: {
      303: redirectResponse('Removed: back to the files page.'),
      403: htmlResponse('A missing or wrong form token, or a role without the right.'),
      404: htmlResponse('No such product or file in this store.'),
    },
    handler: async (ctx, { params }) => {
      const { store, signedIn: s, shell } = dashboardOf(ctx);
      try {
        await removeProductFile(ctx.deps, dashboardActor(store.id, s.user), params.productId, params.fileId);
      } catch (err) {
        if (err instanceof NotFoundError)
          return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.notFound));
        throw err;
      }
      sendPage(ctx, { status: 303, location: `/merchant/products/${params.productId}/files?done=removed` });
    },
  }),
];
