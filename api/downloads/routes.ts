import Joi from 'joi';
import { contentDisposition } from '../../shared/storage/s3';
import { authorizeDownload, REFUSAL_STATUS, type Refusal } from '../../shared/services/files/downloads';
import { DOWNLOAD_TOKEN } from '../../shared/services/files/links';
import type { AppContext } from '../context';
import { paymentStatusGuards } from '../guards';
import { defineRoute } from '../http/route';
import { redirectResponse } from '../openapi/components';
import type { ResponseObject } from '../openapi/types';
import { escapeHtml, layout, sendHtml } from '../pay/html';
import { pickLocale } from '../pay/i18n';
import { REFUSAL_CODE, REFUSAL_TEXT } from './messages';
import { docUrlOf } from '../envelopes';

/**
 * A buyer's download address (docs/downloads.md): `GET /downloads/{token}`, signed and bound to one order
 * item and file (shared/services/files/links.ts). The bytes are always an attachment of
 * `application/octet-stream` with `nosniff`, whatever the file's name says, so a browser never renders a
 * merchant's upload as a page of ours. With the `s3` driver the answer is a redirect to a presigned
 * address valid for PRESIGNED_SECONDS, and the bytes never pass through the web process.
 */

export const PRESIGNED_SECONDS = 300;

const refusal = (description: string): ResponseObject => ({
  description,
  content: {
    'text/html': { schema: { type: 'string' } },
    'application/json': { schema: { $ref: '#/components/schemas/DownloadRefusal' } },
  },
});

const binary = { schema: { type: 'string', format: 'binary' } } as const;

function refuse(ctx: AppContext, why: Refusal): void {
  const locale = pickLocale(ctx);
  const text = REFUSAL_TEXT[locale][why];
  const status = REFUSAL_STATUS[why];
  if (ctx.accepts('html', 'json') === 'json') {
    ctx.set('Cache-Control', 'no-store');
    ctx.status = status;
    const code = REFUSAL_CODE[why];
    ctx.body = { error_code: code, message: REFUSAL_TEXT.en[why].message, doc_url: docUrlOf(code) };
    return;
  }
  const other = locale === 'ar' ? 'en' : 'ar';
  const body = `<h1>${escapeHtml(text.title)}</h1><p>${escapeHtml(text.message)}</p>`;
  sendHtml(ctx, {
    status,
    html: layout(text.title, body, { locale, switchHref: `${ctx.path}?lang=${other}` }),
  });
}

export const downloadRoutes = [
  defineRoute({
    method: 'get',
    path: '/downloads/{token}',
    interface: 'platform',
    operationId: 'downloadFile',
    summary: 'Download a purchased file (buyer)',
    description:
      'The address a paid order item gets per file. 200: the whole file, as an attachment named after ' +
      'the file (`application/octet-stream`, `nosniff`); `Range: bytes=N-` (or `N-M`, `-N`) answers 206 ' +
      'with those bytes. Each whole download counts against the product’s `download_limit` for this order ' +
      'item (0: none); a resume does not. With the `s3` storage driver: a 302 to a short-lived presigned ' +
      'address of the bucket instead. Refused, with a page in Arabic or English (JSON for `Accept: ' +
      'application/json`): 403 for a forged address, an unpaid order or a reached limit; 410 once the ' +
      'order is cancelled or refunded or the file is no longer the buyer’s.',
    guards: paymentStatusGuards,
    security: [],
    request: {
      params: Joi.object<{ token: string }, true>({
        // Any text: a malformed address gets the buyer's "invalid link" page, not a validation error.
        token: Joi.string().max(200).required(),
      }),
      query: Joi.object<{ lang?: 'ar' | 'en' }, true>({ lang: Joi.string().valid('ar', 'en') }),
    },
    responses: {
      200: {
        description: 'The whole file.',
        headers: {
          'Content-Disposition': { description: 'attachment; filename=...', schema: { type: 'string' } },
        },
        content: { 'application/octet-stream': binary },
      },
      206: { description: 'The bytes asked for.', content: { 'application/octet-stream': binary } },
      302: redirectResponse('`s3` storage: the presigned address of the file in the bucket.'),
      403: refusal('A forged address, an order not paid, or the download limit reached.'),
      410: refusal('The order was cancelled or refunded, or the file is no longer the buyer’s.'),
      416: { description: 'A `Range` outside the file (`Content-Range: bytes */size`).' },
      429: refusal('Too many requests from this IP (shared with the payment pages).'),
    },
    handler: async (ctx, { params }) => {
      if (!DOWNLOAD_TOKEN.test(params.token)) return refuse(ctx, 'forged');
      const verdict = await authorizeDownload(ctx.deps, params.token, {
        ip: ctx.ip || 'unknown',
        range: ctx.get('range') || undefined,
        head: ctx.method === 'HEAD',
      });
      if (!verdict.ok) return refuse(ctx, verdict.refusal);
      const { file, range } = verdict;
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Content-Type-Options', 'nosniff');
      const storage = ctx.deps.storage;
      if (storage.name === file.storage_driver && range !== 'unsatisfiable') {
        const presigned = await storage.presignedDownload(file.storage_key, file.name, PRESIGNED_SECONDS);
        if (presigned) {
          ctx.status = 302;
          ctx.redirect(presigned);
          return undefined;
        }
      }
      ctx.set('Accept-Ranges', 'bytes');
      ctx.set('Content-Disposition', contentDisposition(file.name));
      ctx.type = 'application/octet-stream';
      if (range === 'unsatisfiable') {
        ctx.status = 416;
        ctx.set('Content-Range', `bytes */${file.size}`);
        ctx.body = '';
        return undefined;
      }
      if (range) {
        ctx.status = 206;
        ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
        ctx.length = range.end - range.start + 1;
        ctx.body = await storage.readRange(file.storage_key, range.start, range.end);
        return undefined;
      }
      ctx.status = 200;
      ctx.length = file.size;
      ctx.body = file.size === 0 ? '' : await storage.read(file.storage_key);
      return undefined;
    },
  }),
];
