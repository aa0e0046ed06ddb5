import { pageMetaSchema } from '../../../shared/views';
import Joi from 'joi';
import { Readable } from 'node:stream';
import { merchantInvoice } from '../../../shared/services/invoices/read';
import { monthCsv, monthDocuments } from '../../../shared/services/invoices/report';
import { updateVatSettings, vatSettings, ZATCA_VAT_NUMBER } from '../../../shared/services/invoices/settings';
import { fitsTlv } from '../../../shared/services/invoices/tlv';
import { merchantGuards } from '../../guards';
import { defineRoute } from '../../http/route';
import type { SchemaObject } from '../../openapi/types';
import { idParams, noQuery, pageBody } from '../common';
import { merchantOk, merchantRefused, obj } from '../responses';
import { urlDeps } from '../../invoices/routes';

/**
 * Tax invoices on the Merchant API: an order's invoice (the operator contract, docs/operations.md), the
 * month's invoices and credit notes as a list and as CSV, and the store's VAT settings.
 */

const str: SchemaObject = { type: 'string' };
const nstr: SchemaObject = { type: ['string', 'null'] };
const int: SchemaObject = { type: 'integer' };
const bool: SchemaObject = { type: 'boolean' };
/** The currency's own decimals: two for SAR, three for KWD or BHD. */
const amount: SchemaObject = {
  type: 'string',
  pattern: '^-?\\d+(\\.\\d{1,3})?$',
  description: 'Decimal string with the currency’s decimals.',
};
const time: SchemaObject = { type: 'string', format: 'date-time' };

/** E-invoicing phase 2 (docs/einvoicing.md): present for the documents of a store in phase 2. */
const ZatcaMessage = obj({ type: str, code: str, category: str, message: str, status: str }, [
  'type',
  'code',
  'category',
  'message',
  'status',
]);
const phase2 = {
  uuid: { type: 'string', format: 'uuid' },
  counter: { type: 'integer', description: 'The invoice counter (ICV): +1 per document of the store.' },
  hash: { type: 'string', description: 'Base64 SHA-256 of the document canonicalised as ZATCA specifies.' },
  previous_hash: { type: 'string', description: 'The hash of the store’s previous document (PIH).' },
  xml: { type: 'string', description: 'The signed UBL 2.1 document, base64.' },
  reporting: obj({
    status: { type: 'string', enum: ['pending', 'reported', 'rejected'] },
    warnings: { type: 'array', items: ZatcaMessage },
    errors: { type: 'array', items: ZatcaMessage },
    reported_at: { type: ['string', 'null'], format: 'date-time' },
    last_error: nstr,
  }),
} satisfies Record<string, SchemaObject>;
const PHASE2_KEYS = ['uuid', 'counter', 'hash', 'previous_hash', 'xml', 'reporting'] as const;

const CreditNote = obj(
  {
    number: int,
    issued_at: time,
    total_excl_vat: amount,
    total: amount,
    vat: amount,
    reason: str,
    qr: str,
    url: str,
    ...phase2,
  },
  PHASE2_KEYS,
);

const Invoice = obj(
  {
    number: { type: 'integer', description: 'Gapless per store, from 1.' },
    issued_at: {
      ...time,
      description: 'ISO 8601 to the second, UTC: the QR’s time stamp, character for character.',
    },
    order_id: int,
    seller_name: str,
    vat_number: str,
    seller_address: nstr,
    currency: str,
    subtotal: amount,
    discount: amount,
    total_excl_vat: amount,
    vat_rate: { type: 'string', description: 'Percentage, "15.00".' },
    total: amount,
    vat: amount,
    qr: {
      type: 'string',
      description: 'Base64 of the ZATCA TLV record (tags 1 to 5; 1 to 9 for a store in e-invoicing phase 2).',
    },
    url: { type: 'string', description: 'The buyer’s invoice page (no login).' },
    credit_notes: { type: 'array', items: CreditNote },
    ...phase2,
  },
  PHASE2_KEYS,
);

const TaxDocument = obj({
  type: { type: 'string', enum: ['invoice', 'credit_note'] },
  number: int,
  issued_at: time,
  order_id: int,
  invoice_number: int,
  currency: str,
  total_excl_vat: amount,
  vat: amount,
  total: amount,
  reason: nstr,
  url: str,
  hash: {
    type: ['string', 'null'],
    description: 'E-invoicing phase 2: the document’s hash; null outside it.',
  },
  reporting_status: { type: ['string', 'null'], enum: ['pending', 'reported', 'rejected', null] },
});

const MonthTotals = obj({
  currency: str,
  invoices: int,
  credit_notes: int,
  total_excl_vat: amount,
  vat: amount,
  total: amount,
});

const VatSettings = obj({
  legal_name: nstr,
  vat_number: nstr,
  address: nstr,
  issues_invoices: bool,
  prices_include_vat: bool,
  vat_rate: str,
});

const month = (): Joi.StringSchema =>
  Joi.string()
    .pattern(/^\d{4}-(0[1-9]|1[0-2])$/)
    .required()
    .messages({ 'string.pattern.base': '{{#label}} must be a month as YYYY-MM' })
    .description('The month, YYYY-MM (Saudi calendar month, Asia/Riyadh).');

const monthQuery = Joi.object<{ month: string; page: number; per_page: number }, true>({
  month: month(),
  page: Joi.number().integer().min(1).max(100_000).default(1),
  per_page: Joi.number().integer().min(1).max(100).default(15),
})
  .unknown(false)
  .messages({ 'object.unknown': '{{#label}} is not a known parameter' });

const csvQuery = Joi.object<{ month: string }, true>({ month: month() })
  .unknown(false)
  .messages({ 'object.unknown': '{{#label}} is not a known parameter' });

const legalName = Joi.string()
  .trim()
  .min(1)
  .max(200)
  .allow(null)
  .custom((value: string | null, helpers) =>
    value === null || fitsTlv(value) ? value : helpers.error('legal_name.bytes'),
  )
  .messages({ 'legal_name.bytes': '{{#label}} must be at most 255 bytes in UTF-8 (it is in the QR code)' });

const vatBody = Joi.object<
  { legal_name?: string | null; vat_number?: string | null; address?: string | null },
  true
>({
  legal_name: legalName,
  vat_number: Joi.string().trim().pattern(ZATCA_VAT_NUMBER).allow(null).messages({
    'string.pattern.base':
      '{{#label}} must be a ZATCA VAT registration number: 15 digits, starting and ending with 3',
  }),
  address: Joi.string().trim().min(1).max(500).allow(null),
})
  .min(1)
  .required()
  .messages({ 'object.min': 'give at least one of legal_name, vat_number, address' });

const notFound = merchantRefused(
  'not_found',
  'No invoice: another store’s order, an order not paid, or a store without a VAT number.',
  'Invoice not found',
);

export const merchantInvoiceRoutes = [
  defineRoute({
    method: 'get',
    path: '/shawarma/orders/{id}/invoice',
    interface: 'merchant',
    operationId: 'merchantGetOrderInvoice',
    summary: 'Tax invoice of an order',
    description:
      'The simplified tax invoice issued when the order was paid (stores with a VAT number): `number` ' +
      '(gapless per store), `issued_at`, `seller_name`, `vat_number`, `total` and `vat` (decimal strings, ' +
      'prices include VAT), `qr` (base64 of the ZATCA TLV: tag 1 seller name, 2 VAT number, 3 time stamp, ' +
      '4 total with VAT, 5 VAT total; one-byte tag and length, UTF-8 values), `url` (the buyer’s page, ' +
      'Arabic and English, no login), and the credit notes of its refunds. Never changes once issued.',
    guards: merchantGuards,
    request: { params: idParams, query: noQuery },
    responses: { 200: merchantOk('The invoice.', Invoice), 404: notFound },
    handler: (ctx, { params }) =>
      merchantInvoice(ctx.deps.knex, urlDeps(ctx.deps), ctx.state.store!.id, params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/invoices',
    interface: 'merchant',
    operationId: 'merchantListTaxDocuments',
    summary: 'Invoices and credit notes of a month',
    description:
      'Every invoice and credit note issued in `month` (YYYY-MM, Saudi time), in issue order, credit notes ' +
      'with negative amounts; `totals` per currency for the whole month (the VAT due is the sum of `vat`). ' +
      'Paginated: `page`, `per_page` (default 15, at most 100); rows in `data.data`.',
    guards: merchantGuards,
    request: { query: monthQuery },
    responses: {
      200: merchantOk(
        'One page of the month.',
        obj({
          month: str,
          totals: { type: 'array', items: MonthTotals },
          data: { type: 'array', items: TaxDocument },
          meta: pageMetaSchema,
          current_page: int,
          per_page: int,
          total: int,
          last_page: int,
        }),
      ),
    },
    handler: async (ctx, { query }) => {
      const result = await monthDocuments(
        ctx.deps.knex,
        urlDeps(ctx.deps),
        ctx.state.store!.id,
        query.month,
        {
          page: query.page,
          per_page: query.per_page,
        },
      );
      return { month: result.month, totals: result.totals, ...pageBody(result) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/invoices/export',
    interface: 'merchant',
    operationId: 'merchantExportTaxDocuments',
    summary: 'Invoices and credit notes of a month as CSV',
    description:
      'The same rows as the list, all of them, as a CSV attachment (UTF-8 with a byte order mark, CRLF): ' +
      '`type,number,issued_at,order_id,invoice_number,currency,total_excl_vat,vat,total,reason,url,hash,reporting_status` ' +
      '(the last two: e-invoicing phase 2, empty outside it).',
    guards: merchantGuards,
    request: { query: csvQuery },
    responses: {
      200: { description: 'The CSV file.', content: { 'text/csv': { schema: { type: 'string' } } } },
    },
    handler: (ctx, { query }) => {
      const store = ctx.state.store!;
      ctx.status = 200;
      ctx.type = 'text/csv; charset=utf-8';
      ctx.attachment(`tax-documents-${store.id}-${query.month}.csv`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = Readable.from(monthCsv(ctx.deps.knex, urlDeps(ctx.deps), store.id, query.month));
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/shawarma/store/tax',
    interface: 'merchant',
    operationId: 'merchantGetVatSettings',
    summary: 'VAT settings',
    description:
      'The seller on tax invoices (`legal_name`), the VAT registration number, the address, and whether the ' +
      'store issues invoices (it has a VAT number; prices then include 15% VAT).',
    guards: merchantGuards,
    request: { query: noQuery },
    responses: { 200: merchantOk('The settings.', VatSettings) },
    handler: (ctx) => vatSettings(ctx.state.store!),
  }),
  defineRoute({
    method: 'put',
    path: '/shawarma/store/tax',
    interface: 'merchant',
    operationId: 'merchantUpdateVatSettings',
    summary: 'Change the VAT settings',
    description:
      'Any of `legal_name`, `vat_number` (ZATCA form: 15 digits, first and last 3; null stops invoicing), ' +
      '`address`. A VAT number needs a legal name. Setting one makes prices VAT-inclusive at 15% (what ' +
      'buyers pay does not change; each order records its VAT); clearing it turns tax off. Invoices already ' +
      'issued keep what they were issued with.',
    guards: merchantGuards,
    request: {
      body: vatBody,
      example: { legal_name: 'Acme Digital LLC', vat_number: '300000000000003', address: 'Riyadh' },
    },
    responses: {
      200: merchantOk('The settings now.', VatSettings),
      400: merchantRefused('malformed_json', 'The body is not a JSON object.', 'Malformed JSON body'),
    },
    handler: async (ctx, { body }) => {
      return updateVatSettings(ctx.deps, ctx.state.store!.id, body);
    },
  }),
];
