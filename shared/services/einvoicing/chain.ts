import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import { certificateInfo } from './keys';
import { hashInput, Phase1Fields, signDocument, Signer } from './sign';
import { DocumentInput, DocumentLine, FIRST_PREVIOUS_HASH, Seller } from './ubl';

/**
 * The per-store chain of phase-2 documents (docs/einvoicing.md, "The chain"). A document is chained in
 * the transaction that issues its invoice or credit note: the store's chain row is locked (`for update`),
 * its last counter and hash read, the document built and hashed, and the row moved on, so concurrent
 * payments of one store are chained one after the other (the lock is held to the end of the transaction,
 * as the invoice counter's is), and a rolled-back payment takes its link back with it.
 *
 * The signature does not change the hash (ZATCA's hash leaves the signature block out), so a document is
 * signed once, after its transaction, by whoever needs it first (ensureSigned): its reader, its page or
 * the reporting task. The payment paths never hold the store's key.
 */

export interface ChainRequest {
  storeId: number;
  kind: 'invoice' | 'credit_note';
  invoiceId?: number;
  creditNoteId?: number;
  /** cbc:ID */
  id: string;
  issuedAt: Date;
  lines: DocumentLine[];
  totalMinor: number;
  vatMinor: number;
  rateBp: number;
  currency: string;
  billingReference?: string;
  reason?: string;
  p1: Phase1Fields;
}

export interface StoredDocument {
  input: DocumentInput;
  p1: Phase1Fields;
}

/** The seller as the store's e-invoicing settings give it; null when the store is not in phase 2. */
export async function activeSeller(trx: Knex | Knex.Transaction, storeId: number): Promise<Seller | null> {
  const row = await trx('einvoice_settings as e')
    .join('stores as s', 's.id', 'e.store_id')
    .where({ 'e.store_id': storeId, 'e.status': 'active' })
    .first('e.*', 's.legal_name', 's.name', 's.vat_number', 's.currency');
  if (!row || !row.vat_number || row.currency !== 'SAR') return null;
  return {
    legalName: String(row.legal_name ?? row.name),
    vatNumber: String(row.vat_number),
    crn: row.crn ?? null,
    address: {
      street: String(row.street ?? ''),
      buildingNumber: String(row.building_number ?? ''),
      district: String(row.district ?? ''),
      city: String(row.city ?? ''),
      postalZone: String(row.postal_zone ?? ''),
    },
  };
}

/**
 * Chains a document inside the issuing transaction; nothing for a store not in phase 2 (or a document not
 * in SAR: ZATCA's documents are in SAR). Returns the document's id, counter and hash.
 */
export async function chainDocument(
  trx: Knex.Transaction,
  req: ChainRequest,
): Promise<{ id: number; counter: number; hash: string } | null> {
  if (req.currency !== 'SAR') return null;
  const seller = await activeSeller(trx, req.storeId);
  if (!seller) return null;
  await trx.raw(
    `insert into einvoice_chains (store_id, last_counter, last_hash) values (?, 0, ?) on conflict (store_id) do nothing`,
    [req.storeId, FIRST_PREVIOUS_HASH],
  );
  const chain = await trx('einvoice_chains').where({ store_id: req.storeId }).forUpdate().first();
  const counter = Number(chain.last_counter) + 1;
  const input: DocumentInput = {
    kind: req.kind,
    id: req.id,
    uuid: crypto.randomUUID(),
    issuedAt: req.issuedAt,
    counter,
    previousHash: String(chain.last_hash),
    seller: { ...seller, legalName: req.p1.sellerName },
    lines: req.lines,
    totalMinor: req.totalMinor,
    vatMinor: req.vatMinor,
    rateBp: req.rateBp,
    billingReference: req.billingReference,
    reason: req.reason,
  };
  const unsigned = hashInput(input);
  const hash = crypto.createHash('sha256').update(unsigned, 'utf8').digest('base64');
  const [row] = await trx('einvoice_documents')
    .insert({
      store_id: req.storeId,
      kind: req.kind,
      invoice_id: req.invoiceId ?? null,
      credit_note_id: req.creditNoteId ?? null,
      counter,
      uuid: input.uuid,
      issued_at: req.issuedAt,
      hash,
      previous_hash: input.previousHash,
      document: JSON.stringify({ input, p1: req.p1 } satisfies StoredDocument),
      unsigned_xml: unsigned,
      next_attempt_at: req.issuedAt,
    })
    .returning('id');
  await trx('einvoice_chains')
    .where({ store_id: req.storeId })
    .update({ last_counter: counter, last_hash: hash });
  return { id: Number((row as { id: number }).id), counter, hash };
}

export function reviveDocument(raw: unknown): StoredDocument {
  const stored = (typeof raw === 'string' ? JSON.parse(raw) : raw) as StoredDocument;
  return { ...stored, input: { ...stored.input, issuedAt: new Date(stored.input.issuedAt) } };
}

/** The store's signing key and certificate, unsealed. */
export async function loadSigner(
  knex: Knex | Knex.Transaction,
  cipher: Cipher,
  storeId: number,
): Promise<Signer> {
  const row = await knex('einvoice_settings')
    .where({ store_id: storeId })
    .first('private_key_encrypted', 'certificate', 'compliance_certificate');
  const cert = row?.certificate ?? row?.compliance_certificate;
  if (!row?.private_key_encrypted || !cert) throw new Error(`store ${storeId} has no e-invoicing key`);
  return {
    privateKeyPem: cipher.decrypt(String(row.private_key_encrypted)),
    certificate: certificateInfo(String(cert)),
  };
}

export interface DocumentRow {
  id: number;
  store_id: number;
  kind: 'invoice' | 'credit_note';
  counter: number;
  uuid: string;
  hash: string;
  previous_hash: string;
  xml: string | null;
  qr: string | null;
  reporting_status: 'pending' | 'reported' | 'rejected';
  warnings: unknown[];
  errors: unknown[];
  last_error: string | null;
  attempts: number;
  reported_at: Date | null;
  issued_at: Date;
}

/**
 * The document signed (once: the row is locked while it is signed, and a signed row is returned as it
 * is). The signature is made with the key the store holds now; its hash is the one chained.
 */
export async function ensureSigned(
  knex: Knex,
  cipher: Cipher,
  documentId: number,
  now = new Date(),
): Promise<DocumentRow> {
  const quick = await knex('einvoice_documents').where({ id: documentId }).first();
  if (quick?.xml) return quick as DocumentRow;
  return knex.transaction(async (trx) => {
    const doc = await trx('einvoice_documents').where({ id: documentId }).forUpdate().first();
    if (!doc) throw new Error(`e-invoice document ${documentId} not found`);
    if (doc.xml) return doc as DocumentRow;
    const stored = reviveDocument(doc.document);
    const signer = await loadSigner(trx, cipher, Number(doc.store_id));
    const signed = signDocument(stored.input, stored.p1, signer, now);
    if (signed.hash !== doc.hash)
      throw new Error(`e-invoice document ${documentId} does not hash as chained`);
    const [updated] = await trx('einvoice_documents')
      .where({ id: documentId })
      .update({ xml: signed.xml, qr: signed.qr, signed_at: now })
      .returning('*');
    return updated as DocumentRow;
  });
}
