import type { Knex } from 'knex';
import { PageMeta, PageRequest } from '../../pagination';
import { formatAmount } from './amounts';
import { isoSeconds } from './issue';
import { InvoicePageRefs } from './refs';
import type { UrlDeps } from './read';
import { pageMeta } from '../../views';

/**
 * A month's tax documents for the store's accountant: every invoice and credit note issued in the month,
 * in the order they were issued. Months are Saudi calendar months (Asia/Riyadh, UTC+3): an invoice issued
 * at 22:30 UTC on the last day of a month belongs to the next. Credit notes carry negative amounts, so the
 * month's VAT due is the plain sum of the `vat` column.
 */
export const REPORT_TIME_ZONE = 'Asia/Riyadh';

export interface TaxDocumentRow {
  type: 'invoice' | 'credit_note';
  number: number;
  issued_at: string;
  order_id: number;
  /** The invoice a credit note credits (its number); the invoice's own number for an invoice. */
  invoice_number: number;
  currency: string;
  total_excl_vat: string;
  vat: string;
  total: string;
  reason: string | null;
  url: string;
  /** E-invoicing phase 2 (docs/einvoicing.md): the document's hash and reporting status; null outside it. */
  hash: string | null;
  reporting_status: 'pending' | 'reported' | 'rejected' | null;
}

export interface MonthTotals {
  currency: string;
  invoices: number;
  credit_notes: number;
  total_excl_vat: string;
  vat: string;
  total: string;
}

/** The union of both tables for one store and month, signed (credit notes negative). */
function monthQuery(knex: Knex, storeId: number, month: string): Knex.QueryBuilder {
  const from = knex.raw(`(?::date)::timestamp at time zone '${REPORT_TIME_ZONE}'`, [`${month}-01`]);
  const to = knex.raw(`((?::date) + interval '1 month')::timestamp at time zone '${REPORT_TIME_ZONE}'`, [
    `${month}-01`,
  ]);
  const invoices = knex('invoices as v')
    .leftJoin('einvoice_documents as e', 'e.invoice_id', 'v.id')
    .where('v.store_id', storeId)
    .where('v.issued_at', '>=', from)
    .where('v.issued_at', '<', to)
    .select(
      knex.raw("'invoice' as type"),
      knex.raw('0 as kind_order'),
      'v.number',
      'v.issued_at',
      'v.order_id',
      'v.number as invoice_number',
      'v.currency',
      'v.total_minor',
      'v.vat_minor',
      knex.raw('null::text as reason'),
      'e.hash',
      'e.reporting_status',
    );
  const notes = knex('credit_notes as c')
    .join('invoices as i', 'i.id', 'c.invoice_id')
    .leftJoin('einvoice_documents as e', 'e.credit_note_id', 'c.id')
    .where('c.store_id', storeId)
    .where('c.issued_at', '>=', from)
    .where('c.issued_at', '<', to)
    .select(
      knex.raw("'credit_note' as type"),
      knex.raw('1 as kind_order'),
      'c.number',
      'c.issued_at',
      'c.order_id',
      'i.number as invoice_number',
      'c.currency',
      knex.raw('-c.total_minor as total_minor'),
      knex.raw('-c.vat_minor as vat_minor'),
      'c.reason',
      'e.hash',
      'e.reporting_status',
    );
  return knex.queryBuilder().from(invoices.unionAll(notes, true).as('d'));
}

function toRow(r: Record<string, unknown>, refs: InvoicePageRefs, deps: UrlDeps): TaxDocumentRow {
  const currency = String(r.currency);
  const total = Number(r.total_minor);
  const vat = Number(r.vat_minor);
  const orderUrl = refs.url(deps.publicBaseUrl, Number(r.order_id));
  return {
    type: r.type as TaxDocumentRow['type'],
    number: Number(r.number),
    issued_at: isoSeconds(new Date(r.issued_at as string)),
    order_id: Number(r.order_id),
    invoice_number: Number(r.invoice_number),
    currency,
    total_excl_vat: formatAmount(total - vat, currency),
    vat: formatAmount(vat, currency),
    total: formatAmount(total, currency),
    reason: (r.reason as string | null) ?? null,
    url: r.type === 'credit_note' ? `${orderUrl}/credit-notes/${Number(r.number)}` : orderUrl,
    hash: (r.hash as string | null) ?? null,
    reporting_status: (r.reporting_status as TaxDocumentRow['reporting_status']) ?? null,
  };
}

/** Issue order; at the same second an invoice before a credit note. */
const ordered = (q: Knex.QueryBuilder): Knex.QueryBuilder =>
  q.orderBy([{ column: 'issued_at' }, { column: 'kind_order' }, { column: 'number' }]);

/** Rows per database read of the CSV export. */
const CSV_BATCH = 1_000;

/** One page of the month's documents, and the month's totals per currency. */
export async function monthDocuments(
  knex: Knex,
  deps: UrlDeps,
  storeId: number,
  month: string,
  page: PageRequest,
): Promise<{ items: TaxDocumentRow[]; meta: PageMeta; month: string; totals: MonthTotals[] }> {
  const base = monthQuery(knex, storeId, month);
  const [countRow] = await base.clone().count<{ n: number }[]>('* as n');
  const total = Number(countRow?.n ?? 0);
  const rows = (await ordered(base.clone().select('*'))
    .limit(page.per_page)
    .offset((page.page - 1) * page.per_page)) as Record<string, unknown>[];
  const sums = (await base
    .clone()
    .groupBy('currency')
    .orderBy('currency')
    .select(
      'currency',
      knex.raw("count(*) filter (where type = 'invoice')::int as invoices"),
      knex.raw("count(*) filter (where type = 'credit_note')::int as credit_notes"),
      knex.raw('sum(total_minor)::bigint as total_minor'),
      knex.raw('sum(vat_minor)::bigint as vat_minor'),
    )) as Record<string, unknown>[];
  const refs = new InvoicePageRefs(deps.appSecret);
  return {
    month,
    items: rows.map((r) => toRow(r, refs, deps)),
    meta: pageMeta(page, total),
    totals: sums.map((s) => {
      const currency = String(s.currency);
      const t = Number(s.total_minor);
      const v = Number(s.vat_minor);
      return {
        currency,
        invoices: Number(s.invoices),
        credit_notes: Number(s.credit_notes),
        total_excl_vat: formatAmount(t - v, currency),
        vat: formatAmount(v, currency),
        total: formatAmount(t, currency),
      };
    }),
  };
}

export const CSV_COLUMNS = [
  'type',
  'number',
  'issued_at',
  'order_id',
  'invoice_number',
  'currency',
  'total_excl_vat',
  'vat',
  'total',
  'reason',
  'url',
  'hash',
  'reporting_status',
] as const;

/**
 * The columns written as numbers: amounts and ids the platform formats itself (integers and the currency's
 * decimals, a credit note's negative), never text anyone typed. They go out as they are, so a spreadsheet
 * reads -57.50 as a number; every other column is text and gets the formula guard of csvField.
 */
const NUMERIC_COLUMNS: readonly string[] = [
  'number',
  'order_id',
  'invoice_number',
  'total_excl_vat',
  'vat',
  'total',
];
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * RFC 4180 field: quoted when it holds a comma, quote or line break. A text cell beginning with = + - @,
 * a tab or a carriage return is what a spreadsheet may run as a formula (OWASP "CSV Injection"), so it is
 * written with a leading apostrophe, whatever follows (`-1+1+cmd|...` too: a text cell is never a number
 * here, numbers have columns of their own). A numeric cell must be a plain number, or this throws (a
 * programming error: user text in a numeric column).
 */
export function csvField(value: unknown, kind: 'text' | 'number' = 'text'): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (kind === 'number') {
    if (!NUMBER.test(text)) throw new TypeError(`not a number for a numeric CSV column: ${text}`);
    return text;
  }
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The month as CSV (header line, then one line per document, CRLF line ends, UTF-8 with a byte order mark
 * so spreadsheet programs read Arabic reasons right), read from the database a batch at a time (keyset
 * pages in issue order), so a month of any size is never held in memory at once.
 */
export async function* monthCsv(
  knex: Knex,
  deps: UrlDeps,
  storeId: number,
  month: string,
  batchSize = CSV_BATCH,
): AsyncGenerator<string> {
  const refs = new InvoicePageRefs(deps.appSecret);
  yield `\uFEFF${CSV_COLUMNS.join(',')}\r\n`;
  let after: [Date, number, number] | null = null;
  for (;;) {
    const q = ordered(monthQuery(knex, storeId, month).select('*')).limit(batchSize);
    if (after) q.whereRaw('(issued_at, kind_order, number) > (?, ?, ?)', after);
    const batch = (await q) as Record<string, unknown>[];
    for (const r of batch) {
      const row = toRow(r, refs, deps);
      yield `${CSV_COLUMNS.map((c) => csvField(row[c], NUMERIC_COLUMNS.includes(c) ? 'number' : 'text')).join(',')}\r\n`;
    }
    if (batch.length < batchSize) return;
    const last = batch[batch.length - 1]!;
    after = [last.issued_at as Date, Number(last.kind_order), Number(last.number)];
  }
}
