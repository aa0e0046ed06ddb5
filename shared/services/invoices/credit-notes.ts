import type { Knex } from 'knex';
import type { Refund } from '../../../db/models';
import { InvalidError, NotFoundError } from '../../errors';
import { formatAmount, inclusiveVat } from './amounts';
import { isoSeconds, nextNumber, toSecond } from './issue';
import { zatcaQr } from './tlv';
import { chainDocument } from '../einvoicing/chain';

export interface CreditNoteRequest {
  orderId: number;
  /** The amount refunded, VAT included, in the order's minor units; absent: all that is left to credit. */
  amountMinor?: number;
  reason: string;
  /**
   * What this refund is (`refund-{id}` for a refund row): the same key twice returns the note already
   * issued, so a retried refund issues one note.
   */
  refundKey: string;
  /**
   * Credit at most what is left of the invoice instead of refusing more (the refunds hook: a refund that
   * has succeeded must never be rolled back by its paperwork).
   */
  clampToLeft?: boolean;
}

export interface IssuedCreditNote {
  id: number;
  number: number;
  total_minor: number;
  vat_minor: number;
  created: boolean;
}

/**
 * Issues a credit note for a refund of an invoiced order, inside the caller's transaction (the one that
 * records the refund). Returns null for an order without an invoice (a store without a VAT number, or an
 * order never paid): there is nothing to credit on paper.
 *
 * The invoice row is locked, so refunds of one order at once are credited one after the other and their
 * sum never goes past the invoice's total. The VAT of a partial refund is the same inclusive split at the
 * invoice's rate: refunding 57.50 of a 115.00 invoice at 15% credits 7.50 of VAT. A full refund after
 * partial ones credits exactly what is left, so the notes of an order add up to its invoice to the unit.
 * Each note has its own gapless number in the store's credit-note series and its own QR (same five tags,
 * the refund's amounts).
 */
export async function issueCreditNote(
  trx: Knex.Transaction,
  req: CreditNoteRequest,
  now: Date = new Date(),
): Promise<IssuedCreditNote | null> {
  const invoice = await trx('invoices').where({ order_id: req.orderId }).forUpdate().first();
  if (!invoice) return null;
  const same = await trx('credit_notes')
    .where({ invoice_id: invoice.id, refund_key: req.refundKey })
    .first('id', 'number', 'total_minor', 'vat_minor');
  if (same) {
    return {
      id: Number(same.id),
      number: Number(same.number),
      total_minor: Number(same.total_minor),
      vat_minor: Number(same.vat_minor),
      created: false,
    };
  }
  const credited = await trx('credit_notes')
    .where({ invoice_id: invoice.id })
    .first(
      trx.raw('coalesce(sum(total_minor), 0)::bigint as total, coalesce(sum(vat_minor), 0)::bigint as vat'),
    );
  const invoiceTotal = Number(invoice.total_minor);
  const left = invoiceTotal - Number(credited?.total ?? 0);
  const amount = req.clampToLeft ? Math.min(req.amountMinor ?? left, left) : (req.amountMinor ?? left);
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    if (req.amountMinor === undefined || req.clampToLeft) return null; // everything is credited already
    throw new InvalidError('A refund amount must be a positive amount.');
  }
  if (amount > left) {
    throw new InvalidError(
      `Only ${formatAmount(left, invoice.currency)} ${invoice.currency} of this invoice is left to refund.`,
    );
  }
  const rate = Number(invoice.vat_rate_bp);
  // The last credit takes exactly the VAT not yet credited, so the notes add up to the invoice's VAT.
  const vat =
    amount === left
      ? Number(invoice.vat_minor) - Number(credited?.vat ?? 0)
      : Math.min(inclusiveVat(amount, rate), Number(invoice.vat_minor) - Number(credited?.vat ?? 0));
  const issuedAt = toSecond(now);
  const number = await nextNumber(trx, Number(invoice.store_id), 'credit_note');
  const p1 = {
    sellerName: String(invoice.seller_name),
    vatNumber: String(invoice.vat_number),
    timestamp: isoSeconds(issuedAt),
    total: formatAmount(amount, invoice.currency),
    vat: formatAmount(vat, invoice.currency),
  };
  const [row] = await trx('credit_notes')
    .insert({
      store_id: invoice.store_id,
      invoice_id: invoice.id,
      order_id: req.orderId,
      number,
      issued_at: issuedAt,
      seller_name: invoice.seller_name,
      vat_number: invoice.vat_number,
      currency: invoice.currency,
      total_minor: amount,
      vat_minor: vat,
      vat_rate_bp: rate,
      reason: req.reason.slice(0, 500),
      refund_key: req.refundKey.slice(0, 100),
      qr: zatcaQr(p1),
    })
    .returning('id');
  const noteId = Number((row as { id: number }).id);
  const reason = req.reason.slice(0, 500);
  // Phase 2 (docs/einvoicing.md): credit notes are links of the store's one chain too.
  await chainDocument(trx, {
    storeId: Number(invoice.store_id),
    kind: 'credit_note',
    creditNoteId: noteId,
    id: `CN-${number}`,
    issuedAt,
    lines: [{ name: `Refund: ${reason}`.slice(0, 250), quantity: 1, totalMinor: amount }],
    totalMinor: amount,
    vatMinor: vat,
    rateBp: rate,
    currency: String(invoice.currency),
    billingReference: `INV-${Number(invoice.number)}`,
    reason,
    p1,
  });
  return {
    id: noteId,
    number,
    total_minor: amount,
    vat_minor: vat,
    created: true,
  };
}

/**
 * A partial (or full) refund's credit note in a transaction of its own, for callers that record a refund
 * outside one (the refunds of the payment providers). 404 when the order does not exist.
 */
export async function creditRefund(
  knex: Knex,
  req: CreditNoteRequest,
  now: Date = new Date(),
): Promise<IssuedCreditNote | null> {
  return knex.transaction(async (trx) => {
    const order = await trx('orders').where({ id: req.orderId }).first('id');
    if (!order) throw new NotFoundError('Order not found');
    return issueCreditNote(trx, req, now);
  });
}

/**
 * The refunds service's hook (refunds/succeeded.ts): a refund that has succeeded (the money is back, or a
 * manual refund was recorded) is credited on paper, in the transaction that marks it succeeded. Keyed by
 * the refund's id, so a refund is credited once; nothing for an order without an invoice. The refunds
 * service never refunds more than the payment, which is the invoice's total.
 */
export async function creditNoteForRefund(
  trx: Knex.Transaction,
  refund: Pick<Refund, 'id' | 'order_id' | 'amount_minor' | 'reason'>,
  now: Date,
): Promise<void> {
  await issueCreditNote(
    trx,
    {
      orderId: refund.order_id,
      amountMinor: Number(refund.amount_minor),
      reason: refund.reason?.trim() || 'Refund',
      refundKey: `refund-${refund.id}`,
      clampToLeft: true,
    },
    now,
  );
}
