import type { Knex } from 'knex';
import { NotFoundError } from '../../errors';
import { formatAmount } from './amounts';
import type { PaymentMethodId } from '../../../db/models';
import type { InvoiceLine } from './issue';
import { arabicName, isoSeconds } from './issue';
import { InvoicePageRefs } from './refs';
import { Phase2View, phase2Documents, phase2View } from '../einvoicing/views';
import type { DocumentRow } from '../einvoicing/chain';

export const INVOICE_NOT_FOUND = 'Invoice not found';

export interface UrlDeps {
  appSecret: string;
  /** Earlier secrets (APP_SECRET_PREVIOUS): invoice page addresses built under them still open. */
  appSecretPrevious?: readonly string[];
  publicBaseUrl: string;
}

export interface CreditNoteView {
  number: number;
  issued_at: string;
  total_excl_vat: string;
  total: string;
  vat: string;
  reason: string;
  qr: string;
  url: string;
}

/** An invoice or credit note of a store in e-invoicing phase 2 also carries its chained, signed document. */
export type WithPhase2<T> = T & Partial<Phase2View>;

/** GET /shawarma/orders/{id}/invoice: what the operator contract (docs/operations.md) pins, and more. */
export interface InvoiceView {
  number: number;
  issued_at: string;
  order_id: number;
  seller_name: string;
  vat_number: string;
  seller_address: string | null;
  currency: string;
  subtotal: string;
  discount: string;
  total_excl_vat: string;
  vat_rate: string;
  total: string;
  vat: string;
  qr: string;
  url: string;
  credit_notes: WithPhase2<CreditNoteView>[];
}

type Row = Record<string, unknown>;

const rate = (bp: unknown): string => formatAmount(Number(bp), 'SAR');

/** The phase-2 fields, and the phase-2 QR (tags 1-9) in place of phase one's. */
function withPhase2<T extends { qr: string }>(view: T, doc: DocumentRow | undefined): WithPhase2<T> {
  if (!doc) return view;
  return { ...view, ...phase2View(doc), qr: String(doc.qr) };
}

function creditNoteView(row: Row, url: string, docs?: Map<string, DocumentRow>): WithPhase2<CreditNoteView> {
  const currency = String(row.currency);
  return withPhase2(
    {
      number: Number(row.number),
      issued_at: isoSeconds(new Date(row.issued_at as string)),
      total_excl_vat: formatAmount(Number(row.total_minor) - Number(row.vat_minor), currency),
      total: formatAmount(Number(row.total_minor), currency),
      vat: formatAmount(Number(row.vat_minor), currency),
      reason: String(row.reason),
      qr: String(row.qr),
      url: `${url}/credit-notes/${Number(row.number)}`,
    },
    docs?.get(`credit_note:${Number(row.id)}`),
  );
}

function invoiceView(
  row: Row,
  notes: Row[],
  url: string,
  docs?: Map<string, DocumentRow>,
): WithPhase2<InvoiceView> {
  const currency = String(row.currency);
  const total = Number(row.total_minor);
  const vat = Number(row.vat_minor);
  return withPhase2(
    {
      number: Number(row.number),
      issued_at: isoSeconds(new Date(row.issued_at as string)),
      order_id: Number(row.order_id),
      seller_name: String(row.seller_name),
      vat_number: String(row.vat_number),
      seller_address: (row.seller_address as string | null) ?? null,
      currency,
      subtotal: formatAmount(Number(row.subtotal_minor), currency),
      discount: formatAmount(Number(row.discount_minor), currency),
      total_excl_vat: formatAmount(total - vat, currency),
      vat_rate: rate(row.vat_rate_bp),
      total: formatAmount(total, currency),
      vat: formatAmount(vat, currency),
      qr: String(row.qr),
      url,
      credit_notes: notes.map((n) => creditNoteView(n, url, docs)),
    },
    docs?.get('invoice'),
  );
}

/**
 * The invoice of one of the store's orders. Not found (one answer for all, so nothing leaks) for another
 * store's order, an order not paid, and an order of a store without a VAT number (which never has one).
 */
export async function merchantInvoice(
  knex: Knex,
  deps: UrlDeps,
  storeId: number,
  orderId: number,
): Promise<WithPhase2<InvoiceView>> {
  const row = await knex('invoices').where({ order_id: orderId, store_id: storeId }).first();
  if (!row) throw new NotFoundError(INVOICE_NOT_FOUND);
  const notes = await knex('credit_notes').where({ invoice_id: row.id }).orderBy('number');
  const docs = await phase2Documents(
    knex,
    deps,
    Number(row.id),
    notes.map((n) => Number(n.id)),
  );
  return invoiceView(row, notes, new InvoicePageRefs(deps.appSecret).url(deps.publicBaseUrl, orderId), docs);
}

/** Statuses of an order that was paid: In progress, Completed, Refunded (a cancelled one is checked below). */
const PAID_STATUSES = [3, 4, 6];

/**
 * The address of an order's invoice or receipt page, for the links on the payment success page, in the
 * delivery message and in the Merchant API's order detail. Null while the order is not paid.
 */
export async function documentUrl(knex: Knex, deps: UrlDeps, orderId: number): Promise<string | null> {
  return (await documentLink(knex, deps, orderId))?.url ?? null;
}

export interface DocumentLink {
  url: string;
  /** What the page shows: the order's tax invoice, or a receipt (a store without a VAT number). */
  kind: 'invoice' | 'receipt';
}

/** documentUrl, and whether the page is an invoice or a receipt (for the link's wording). */
export async function documentLink(knex: Knex, deps: UrlDeps, orderId: number): Promise<DocumentLink | null> {
  const order = await knex('orders as o')
    .leftJoin('payments as p', 'p.id', 'o.payment_id')
    .leftJoin('invoices as i', 'i.order_id', 'o.id')
    .where('o.id', orderId)
    .first('o.status', 'p.status as payment_status', 'i.id as invoice_id');
  if (!order || !wasPaid(order)) return null;
  return {
    url: new InvoicePageRefs(deps.appSecret).url(deps.publicBaseUrl, orderId),
    kind: order.invoice_id === null ? 'receipt' : 'invoice',
  };
}

/** documentLink for many orders in one statement (the buyer's account lists up to its limit at once). */
export async function documentLinks(
  knex: Knex,
  deps: UrlDeps,
  orderIds: readonly number[],
): Promise<Map<number, DocumentLink | null>> {
  const out = new Map<number, DocumentLink | null>();
  if (orderIds.length === 0) return out;
  const rows = (await knex('orders as o')
    .leftJoin('payments as p', 'p.id', 'o.payment_id')
    .leftJoin('invoices as i', 'i.order_id', 'o.id')
    .whereIn('o.id', orderIds)
    .select('o.id', 'o.status', 'p.status as payment_status', 'i.id as invoice_id')) as (Row & {
    id: number;
  })[];
  const refs = new InvoicePageRefs(deps.appSecret);
  for (const order of rows) {
    out.set(
      Number(order.id),
      wasPaid(order)
        ? {
            url: refs.url(deps.publicBaseUrl, Number(order.id)),
            kind: order.invoice_id === null ? 'receipt' : 'invoice',
          }
        : null,
    );
  }
  return out;
}

function wasPaid(order: Row): boolean {
  return (
    PAID_STATUSES.includes(Number(order.status)) ||
    order.payment_status === 'paid' ||
    order.payment_status === 'refunded'
  );
}

export interface ReceiptLine {
  name: string;
  /** The product's Arabic name (name_ar), for the Arabic side; absent when it has none. */
  name_ar?: string;
  quantity: number;
  unit_price_minor: number;
  total_minor: number;
}

/** What the buyer's page shows: the invoice (with its credit notes), or a plain receipt. */
export type DocumentPage =
  | { kind: 'not_found' }
  | {
      kind: 'invoice';
      storeName: string;
      orderId: number;
      /** The store's own order number (`orders.number`), the one people read. */
      orderNumber: number;
      invoice: InvoiceView;
      lines: InvoiceLine[];
      creditNote: CreditNoteView | null;
    }
  | {
      kind: 'receipt';
      storeName: string;
      orderId: number;
      orderNumber: number;
      url: string;
      paidAt: string;
      /** The store's time zone, the one the page shows `paidAt` in. */
      timeZone: string;
      /** The order's status now (a refunded order's receipt says so). */
      status: number;
      /** The payment method's id (`card`, `bank`…), null when the order has no payment. */
      method: PaymentMethodId | null;
      buyerName: string;
      currency: string;
      lines: ReceiptLine[];
      subtotal: string;
      discount: string;
      total: string;
      tax: string | null;
    };

/**
 * The page at an order's capability address (InvoicePageRefs): its invoice, one of its credit notes
 * (`creditNote` the note's number), or, for a store without a VAT number, its receipt. Not found for a
 * bad reference, an order not paid, or an unknown credit note.
 */
export async function documentPage(
  knex: Knex,
  deps: UrlDeps,
  ref: string,
  creditNote?: number,
): Promise<DocumentPage> {
  const refs = new InvoicePageRefs(deps.appSecret, deps.appSecretPrevious);
  const orderId = refs.parse(ref);
  if (orderId === null) return { kind: 'not_found' };
  const order = await knex('orders as o')
    .join('stores as s', 's.id', 'o.store_id')
    .leftJoin('payments as p', 'p.id', 'o.payment_id')
    .where('o.id', orderId)
    .first(
      'o.*',
      's.name as store_name',
      's.time_zone',
      'p.status as payment_status',
      'p.paid_at',
      'p.method as payment_method',
    );
  if (!order || !wasPaid(order)) return { kind: 'not_found' };
  const url = refs.url(deps.publicBaseUrl, orderId);
  const invoice = await knex('invoices').where({ order_id: orderId }).first();
  if (invoice) {
    const notes = await knex('credit_notes').where({ invoice_id: invoice.id }).orderBy('number');
    const docs = await phase2Documents(
      knex,
      deps,
      Number(invoice.id),
      notes.map((n) => Number(n.id)),
    );
    const view = invoiceView(invoice, notes, url, docs);
    const note = creditNote === undefined ? null : view.credit_notes.find((n) => n.number === creditNote);
    if (note === undefined) return { kind: 'not_found' };
    return {
      kind: 'invoice',
      storeName: String(order.store_name),
      orderId,
      orderNumber: Number(order.number),
      invoice: view,
      lines: invoice.lines as InvoiceLine[],
      creditNote: note,
    };
  }
  if (creditNote !== undefined) return { kind: 'not_found' };
  const items = await knex('order_items as i')
    .leftJoin('products as p', 'p.id', 'i.product_id')
    .where('i.order_id', orderId)
    .orderBy('i.id')
    .select('i.name', 'p.name_ar', 'i.quantity', 'i.unit_price_minor', 'i.total_minor');
  const currency = String(order.currency);
  const tax = Number(order.tax_minor);
  return {
    kind: 'receipt',
    storeName: String(order.store_name),
    orderId,
    orderNumber: Number(order.number),
    url,
    paidAt: isoSeconds(new Date((order.paid_at ?? order.created_at) as string)),
    timeZone: String(order.time_zone ?? 'Asia/Riyadh'),
    status: Number(order.status),
    method: (order.payment_method as PaymentMethodId | null) ?? null,
    buyerName: `${String(order.customer_first_name ?? '')} ${String(order.customer_last_name ?? '')}`.trim(),
    currency,
    lines: items.map((i) => ({
      name: String(i.name),
      ...arabicName(i.name_ar),
      quantity: Number(i.quantity),
      unit_price_minor: Number(i.unit_price_minor),
      total_minor: Number(i.total_minor),
    })),
    subtotal: formatAmount(Number(order.subtotal_minor), currency),
    discount: formatAmount(Number(order.discount_minor), currency),
    total: formatAmount(Number(order.total_minor), currency),
    // A store without a VAT number shows no VAT line; a tax it adds on its own is shown as such.
    tax: tax > 0 ? formatAmount(tax, currency) : null,
  };
}
