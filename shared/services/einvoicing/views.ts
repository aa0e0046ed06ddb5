import type { Knex } from 'knex';
import { Cipher } from '../../crypto';
import type { ZatcaMessage } from './client';
import { DocumentRow, ensureSigned } from './chain';

/** What the Merchant API adds to an invoice or credit note of a store in phase 2 (docs/einvoicing.md). */
export interface Phase2View {
  uuid: string;
  counter: number;
  hash: string;
  previous_hash: string;
  /** The signed UBL document, base64. */
  xml: string;
  reporting: {
    status: 'pending' | 'reported' | 'rejected';
    warnings: ZatcaMessage[];
    errors: ZatcaMessage[];
    reported_at: string | null;
    last_error: string | null;
  };
}

export interface CipherSource {
  appSecret: string;
  appSecretPrevious?: readonly string[];
}

export function phase2View(doc: DocumentRow): Phase2View {
  return {
    uuid: doc.uuid,
    counter: Number(doc.counter),
    hash: doc.hash,
    previous_hash: doc.previous_hash,
    xml: Buffer.from(String(doc.xml), 'utf8').toString('base64'),
    reporting: {
      status: doc.reporting_status,
      warnings: (doc.warnings ?? []) as ZatcaMessage[],
      errors: (doc.errors ?? []) as ZatcaMessage[],
      reported_at: doc.reported_at ? new Date(doc.reported_at).toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
      last_error: doc.last_error,
    },
  };
}

/**
 * The signed phase-2 documents of an invoice and of its credit notes (signed now if nobody has yet), keyed
 * `invoice` and `credit_note:<id>`. Empty for a store not in phase 2.
 */
export async function phase2Documents(
  knex: Knex,
  secrets: CipherSource,
  invoiceId: number,
  creditNoteIds: number[],
): Promise<Map<string, DocumentRow>> {
  const rows = await knex('einvoice_documents')
    .where({ invoice_id: invoiceId })
    .orWhereIn('credit_note_id', creditNoteIds.length ? creditNoteIds : [-1])
    .select('id', 'invoice_id', 'credit_note_id', 'xml');
  const out = new Map<string, DocumentRow>();
  if (rows.length === 0) return out;
  const cipher = new Cipher(secrets.appSecret, secrets.appSecretPrevious ?? []);
  for (const row of rows) {
    const doc = await ensureSigned(knex, cipher, Number(row.id));
    out.set(row.invoice_id ? 'invoice' : `credit_note:${Number(row.credit_note_id)}`, doc);
  }
  return out;
}
