import type { Knex } from 'knex';
import { formatAmount } from './amounts';
import { clipToTlv, zatcaQr } from './tlv';
import { chainDocument } from '../einvoicing/chain';

export type Series = 'invoice' | 'credit_note';

/** One line of an issued invoice, as sold. */
export interface InvoiceLine {
  name: string;
  /** The product's Arabic name (name_ar) at issue, for the Arabic side; absent when it has none. */
  name_ar?: string;
  quantity: number;
  unit_price_minor: number;
  total_minor: number;
}

export interface IssuedInvoice {
  id: number;
  number: number;
  created: boolean;
}

/** `{ name_ar }` for a product's Arabic name when it has one (not blank), else nothing. */
export function arabicName(value: unknown): { name_ar?: string } {
  return typeof value === 'string' && value.trim() !== '' ? { name_ar: value } : {};
}

/** ISO 8601 to the second, in UTC: the form of the QR's time stamp and of `issued_at` (the same text). */
export function isoSeconds(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `at` without its milliseconds, so the stored time and the QR's text are one instant. */
export function toSecond(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 1000) * 1000);
}

/**
 * The next number of a store's series, inside the caller's transaction. The counter row stays locked
 * until that transaction ends: numbers are handed out one transaction at a time, and a transaction that
 * rolls back gives its number back, so a series never skips one (gapless) and never repeats one.
 */
export async function nextNumber(trx: Knex.Transaction, storeId: number, series: Series): Promise<number> {
  const result = await trx.raw<{ rows: { last_number: number }[] }>(
    `insert into tax_document_counters (store_id, series, last_number) values (?, ?, 1)
     on conflict (store_id, series) do update set last_number = tax_document_counters.last_number + 1
     returning last_number`,
    [storeId, series],
  );
  return Number(result.rows[0]!.last_number);
}

/**
 * Issues the simplified tax invoice of an order that has just become paid, inside the transaction that
 * makes it paid (payment reconciliation, a manual payment confirmed, a merchant marking it paid, a free
 * order). Nothing happens for a store without a VAT number (its buyers get a receipt) or for an order that
 * already has its invoice: safe to call from every path that pays an order, any number of times.
 *
 * The order row is locked first, so two payers of one order at once issue one invoice; then the store's
 * counter (nextNumber). Everything on the invoice is copied as it stands now (seller, VAT number, lines,
 * the VAT split the order recorded at sale) and never changes after: the table refuses edits.
 */
export async function issueInvoiceForOrder(
  trx: Knex.Transaction,
  orderId: number,
  now: Date = new Date(),
): Promise<IssuedInvoice | null> {
  const order = await trx('orders').where({ id: orderId }).forUpdate().first();
  if (!order) return null;
  const store = await trx('stores')
    .where({ id: order.store_id })
    .first('id', 'name', 'legal_name', 'vat_number', 'vat_address');
  if (!store?.vat_number) return null;
  const existing = await trx('invoices').where({ order_id: orderId }).first('id', 'number');
  if (existing) return { id: Number(existing.id), number: Number(existing.number), created: false };

  const items = await trx('order_items as i')
    .leftJoin('products as p', 'p.id', 'i.product_id')
    .where('i.order_id', orderId)
    .orderBy('i.id')
    .select('i.name', 'p.name_ar', 'i.quantity', 'i.unit_price_minor', 'i.total_minor');
  // The bilingual catalogue (docs/store-pages.md): each line keeps its product's Arabic name as issued.
  const lines: InvoiceLine[] = items.map((i) => ({
    name: String(i.name),
    ...arabicName(i.name_ar),
    quantity: Number(i.quantity),
    unit_price_minor: Number(i.unit_price_minor),
    total_minor: Number(i.total_minor),
  }));
  const issuedAt = toSecond(now);
  const currency = String(order.currency);
  const totalMinor = Number(order.total_minor);
  const vatMinor = Number(order.tax_minor);
  // Validated to fit the QR when written; a store name used as the fallback is clipped rather than fail a payment.
  const sellerName = clipToTlv(String(store.legal_name ?? store.name));
  const number = await nextNumber(trx, Number(store.id), 'invoice');
  const p1 = {
    sellerName,
    vatNumber: String(store.vat_number),
    timestamp: isoSeconds(issuedAt),
    total: formatAmount(totalMinor, currency),
    vat: formatAmount(vatMinor, currency),
  };
  const [row] = await trx('invoices')
    .insert({
      store_id: store.id,
      order_id: orderId,
      number,
      issued_at: issuedAt,
      seller_name: sellerName,
      vat_number: store.vat_number,
      seller_address: store.vat_address ?? null,
      currency,
      subtotal_minor: Number(order.subtotal_minor),
      discount_minor: Number(order.discount_minor),
      total_minor: totalMinor,
      vat_minor: vatMinor,
      vat_rate_bp: Number(order.tax_rate_bp),
      lines: JSON.stringify(lines),
      qr: zatcaQr(p1),
    })
    .returning('id');
  const invoiceId = Number((row as { id: number }).id);
  // Phase 2 (docs/einvoicing.md): the store's next link in its chain, in this same transaction.
  await chainDocument(trx, {
    storeId: Number(store.id),
    kind: 'invoice',
    invoiceId,
    id: `INV-${number}`,
    issuedAt,
    lines: lines.map((l) => ({ name: l.name, quantity: l.quantity, totalMinor: l.total_minor })),
    totalMinor,
    vatMinor,
    rateBp: Number(order.tax_rate_bp),
    currency,
    p1,
  });
  return { id: invoiceId, number, created: true };
}
