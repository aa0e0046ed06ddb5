import Joi from 'joi';
import { NotFoundError } from '../../../../shared/errors';
import { findProduct } from '../../../../shared/services/catalogue/product-form';
import { addCodes, codesFromCsv } from '../../../../shared/services/catalogue/codes';
import { dashboardActor, pageScriptRoute } from '../../forms';
import type { AppContext } from '../../../context';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { keysView } from './view';
import { KEYS_SCRIPT } from './script';
import { sendPage } from '../../layout';
import { dashboardMultipart } from './multipart';
import { dashboardOf, formField, messagePage, signedIn } from '../../session';

/** Keys one upload request may add (the plain form sends the whole file; the page's script parts of 500). */
const MAX_KEYS = 10_000;
const MAX_KEY_LENGTH = 500;

const productParams = Joi.object({
  productId: Joi.number().integer().min(1).max(2_147_483_647).required(),
}) as Joi.ObjectSchema<{ productId: number }>;

async function codeProductOf(ctx: AppContext, productId: number) {
  const { store } = dashboardOf(ctx);
  try {
    const product = await findProduct(ctx.deps.knex, store.id, productId);
    return product.type === 'code' ? product : null;
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

function keysNotFound(ctx: AppContext) {
  const { shell } = dashboardOf(ctx);
  return sendPage(ctx, messagePage(shell, 404, shell.t.notFoundTitle, shell.t.keysNotCode));
}

const lines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

export const dashboardCatalogueRoutes = [
  pageScriptRoute({
    path: '/merchant/assets/keys.js',
    operationId: 'dashboardKeysScript',
    summary: 'Merchant dashboard: the key upload page’s script',
    description:
      'Sends the keys in parts of 500 lines and moves the progress bar. The page works without it.',
    source: KEYS_SCRIPT,
  }),
  defineRoute({
    method: 'get',
    path: '/merchant/products/{productId}/keys',
    interface: 'platform',
    operationId: 'dashboardProductKeys',
    summary: 'Merchant dashboard: upload keys to a code product',
    description:
      'A CSV file (input labelled "CSV file of keys") or pasted keys, a progress bar, and the counts.',
    guards: signedIn('products.edit'),
    request: { params: productParams, query: Joi.object({ lang: Joi.string().valid('ar', 'en') }) },
    responses: {
      200: htmlResponse('The upload page.'),
      404: htmlResponse('No such code product in this store.'),
      302: redirectResponse('Not signed in: to the sign-in page.'),
      403: htmlResponse('Not allowed for this role.'),
    },
    handler: async (ctx, { params }) => {
      const { shell } = dashboardOf(ctx);
      const product = await codeProductOf(ctx, params.productId);
      if (!product) return keysNotFound(ctx);
      sendPage(ctx, {
        status: 200,
        html: keysView(
          shell,
          { id: product.id, name: product.name, available: product.available_codes ?? 0 },
          null,
          null,
        ),
      });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products/{productId}/keys',
    interface: 'platform',
    operationId: 'dashboardProductKeysAdd',
    summary: 'Merchant dashboard: add keys to a code product',
    description:
      'multipart/form-data or a urlencoded form: `csv` (a CSV file, first column, optional `code` header) ' +
      'and/or `codes` (one key a line), `_csrf`. At most 10,000 keys of 500 characters. Keys the product ' +
      'has are skipped. `Accept: application/json` (the page’s script) answers the counts as JSON.',
    // The session, role and origin before the body is read; the form token (in the body) right after.
    guards: signedIn('products.edit', { readBody: dashboardMultipart() }),
    request: {
      params: productParams,
      bodyTypes: ['multipart/form-data', 'application/x-www-form-urlencoded'],
      body: Joi.object({
        _csrf: Joi.string().max(200),
        csv: Joi.string().allow('').max(6_000_000),
        codes: Joi.string().allow('').max(6_000_000),
      }).unknown(true),
    },
    responses: {
      200: {
        description: 'The page with the counts (HTML), or the counts (JSON).',
        content: {
          'text/html': { schema: { type: 'string' } },
          'application/json': {
            schema: {
              type: 'object',
              required: ['added', 'skipped', 'available', 'available_text'],
              properties: {
                added: { type: 'integer' },
                skipped: { type: 'integer' },
                available: { type: 'integer' },
                available_text: { type: 'string' },
              },
            },
          },
        },
      },
      404: htmlResponse('No such code product in this store.'),
      422: htmlResponse('No key, too many, or one too long (the page again, saying so).'),
      403: htmlResponse(
        'Not allowed for this role, a missing or wrong form token, or a form from another site.',
      ),
    },
    handler: async (ctx, { params }) => {
      const { store, shell, signedIn: s } = dashboardOf(ctx);
      const product = await codeProductOf(ctx, params.productId);
      if (!product) return keysNotFound(ctx);
      const codes = [
        ...codesFromCsv(formField(ctx, 'csv').replace(/^\uFEFF/, '')),
        ...lines(formField(ctx, 'codes')),
      ];
      const page = (
        status: number,
        result: { added: number; skipped: number } | null,
        error: string | null,
      ) =>
        sendPage(ctx, {
          status,
          html: keysView(
            shell,
            { id: product.id, name: product.name, available: product.available_codes ?? 0 },
            result,
            error,
          ),
        });
      if (codes.length === 0) return page(422, null, shell.t.keysNothing);
      if (codes.length > MAX_KEYS || codes.some((c) => c.length > MAX_KEY_LENGTH)) {
        return page(422, null, shell.t.fieldErrors.tooManyCodes);
      }
      const added = await addCodes(ctx.deps, dashboardActor(store.id, s.user), store.id, product.id, codes);
      if (ctx.accepts('html', 'json') === 'json') {
        ctx.set('Cache-Control', 'no-store');
        ctx.status = 200;
        ctx.body = {
          added: added.added,
          skipped: added.skipped,
          available: added.available,
          available_text: shell.t.keysInStock(added.available),
        };
        return;
      }
      product.available_codes = added.available;
      return page(200, { added: added.added, skipped: added.skipped }, null);
    },
  }),
];
