import Joi from 'joi';
import { documentPage, type DocumentPage } from '../../shared/services/invoices/read';
import type { AppContext } from '../context';
import { paymentStatusGuards } from '../guards';
import { defineRoute, type ResponseDoc } from '../http/route';
import { htmlResponse } from '../openapi/components';
import type { ResponseObject } from '../openapi/types';
import { sendHtml } from '../pay/html';
import { documentPdf } from '../../shared/services/invoices/pdf';
import { documentPageView } from './views';

/**
 * The buyer's tax documents: an order's invoice (or, for a store without a VAT number, its receipt) and
 * its credit notes, at the order's capability address (shared/services/invoices/refs.ts). No login: whoever
 * holds the link reads the page, as with a paper invoice. Under the per-IP limit of the payment pages.
 */

const refParam = {
  ref: Joi.string().max(100).required().description('The order id and its signature, as issued.'),
};

const noteParams = Joi.object<{ ref: string; number: number }, true>({
  ...refParam,
  number: Joi.number().integer().min(1).max(2_147_483_647).required().description('The note number.'),
});

const limited: Record<number, ResponseDoc> = {
  429: {
    description: 'Too many requests from this IP (120 per minute, shared with the payment pages).',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/PlatformError' } } },
  },
};

const pdfResponse: ResponseObject = {
  description: 'The PDF (A4), as an attachment.',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
};

/** The PDF of a document page, or the HTML 404 page. */
async function sendPdf(ctx: AppContext, result: DocumentPage, name: string): Promise<void> {
  if (result.kind === 'not_found') return sendHtml(ctx, await documentPageView(result));
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.status = 200;
  ctx.type = 'application/pdf';
  ctx.attachment(`${name}.pdf`);
  ctx.body = await documentPdf(result);
}

function pdfName(result: DocumentPage): string {
  if (result.kind === 'invoice') {
    return result.creditNote ? `credit-note-${result.creditNote.number}` : `invoice-${result.invoice.number}`;
  }
  return result.kind === 'receipt' ? `receipt-${result.orderId}` : 'not-found';
}

export const invoicePageRoutes = [
  defineRoute({
    method: 'get',
    path: '/invoices/{ref}',
    interface: 'platform',
    operationId: 'invoicePage',
    summary: 'Invoice or receipt (buyer page)',
    description:
      'The simplified tax invoice of a paid order, in Arabic and English side by side, with its ZATCA QR ' +
      'code, lines, VAT split and links to its credit notes; for a store without a VAT number a plain ' +
      'receipt (no QR, no VAT line). The address is the `url` of the Merchant API’s invoice and the link ' +
      'on the payment success page and in the delivery message. 404 for an unknown link or an unpaid order.',
    guards: paymentStatusGuards,
    security: [],
    request: { params: Joi.object<{ ref: string }, true>(refParam) },
    responses: {
      ...limited,
      200: htmlResponse('The invoice or the receipt.'),
      404: htmlResponse('Unknown link, or an order not paid.'),
    },
    handler: async (ctx, { params }) => {
      const result = await documentPage(ctx.deps.knex, urlDeps(ctx.deps), params.ref);
      sendHtml(ctx, await documentPageView(result));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/invoices/{ref}/credit-notes/{number}',
    interface: 'platform',
    operationId: 'creditNotePage',
    summary: 'Credit note (buyer page)',
    description:
      'A credit note of the order (its number in the store’s credit-note series), in Arabic and English, ' +
      'with its own ZATCA QR code and the invoice it credits.',
    guards: paymentStatusGuards,
    security: [],
    request: {
      params: noteParams,
    },
    responses: {
      ...limited,
      200: htmlResponse('The credit note.'),
      404: htmlResponse('Unknown link or credit note.'),
    },
    handler: async (ctx, { params }) => {
      const result = await documentPage(ctx.deps.knex, urlDeps(ctx.deps), params.ref, params.number);
      sendHtml(ctx, await documentPageView(result));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/invoices/{ref}/pdf',
    interface: 'platform',
    operationId: 'invoicePdf',
    summary: 'Invoice or receipt as PDF (buyer)',
    description:
      'The same document as the page, as an A4 PDF in Arabic and English with the QR code (Amiri font ' +
      'embedded, Arabic shaped and in right-to-left order).',
    guards: paymentStatusGuards,
    security: [],
    request: { params: Joi.object<{ ref: string }, true>(refParam) },
    responses: { ...limited, 200: pdfResponse, 404: htmlResponse('Unknown link, or an order not paid.') },
    handler: async (ctx, { params }) => {
      const result = await documentPage(ctx.deps.knex, urlDeps(ctx.deps), params.ref);
      await sendPdf(ctx, result, pdfName(result));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/invoices/{ref}/credit-notes/{number}/pdf',
    interface: 'platform',
    operationId: 'creditNotePdf',
    summary: 'Credit note as PDF (buyer)',
    description: 'The credit note as an A4 PDF in Arabic and English with its QR code.',
    guards: paymentStatusGuards,
    security: [],
    request: { params: noteParams },
    responses: { ...limited, 200: pdfResponse, 404: htmlResponse('Unknown link or credit note.') },
    handler: async (ctx, { params }) => {
      const result = await documentPage(ctx.deps.knex, urlDeps(ctx.deps), params.ref, params.number);
      await sendPdf(ctx, result, pdfName(result));
    },
  }),
];

export function urlDeps(deps: {
  appSecret: string;
  appSecretPrevious?: readonly string[];
  config: { publicBaseUrl: string };
}): {
  appSecret: string;
  appSecretPrevious?: readonly string[];
  publicBaseUrl: string;
} {
  return {
    appSecret: deps.appSecret,
    appSecretPrevious: deps.appSecretPrevious,
    publicBaseUrl: deps.config.publicBaseUrl,
  };
}
