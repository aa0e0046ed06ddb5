import type { Knex } from 'knex';
import type { Cipher } from '../../crypto';
import type { ZatcaMessage } from './client';
import { ensureSigned } from './chain';

/** What the dashboard's e-invoicing page shows (api/dashboard/pages/einvoicing). */
export interface EinvoicingOverview {
  store: { vat_number: string | null; legal_name: string | null; currency: string };
  settings: {
    mode: 'simulation' | 'zatca';
    status: 'keys' | 'compliance' | 'checked' | 'active';
    crn: string | null;
    street: string | null;
    building_number: string | null;
    district: string | null;
    city: string | null;
    postal_zone: string | null;
    branch_name: string | null;
    location: string | null;
    industry: string | null;
    compliance_checks: Record<string, string>;
    certificate_expires_at: Date | null;
    renewing: boolean;
  } | null;
  documents: {
    id: number;
    kind: 'invoice' | 'credit_note';
    number: number | null;
    counter: number;
    issued_at: Date;
    reporting_status: 'pending' | 'reported' | 'rejected';
    warnings: ZatcaMessage[];
    errors: ZatcaMessage[];
    last_error: string | null;
    order_id: number | null;
    /** Pending more than 24 hours after it was issued: past ZATCA's reporting deadline. */
    overdue: boolean;
  }[];
}

export const REPORTING_DEADLINE_MS = 24 * 3600_000;

export async function einvoicingOverview(
  knex: Knex,
  storeId: number,
  limit = 50,
  now: Date = new Date(),
): Promise<EinvoicingOverview> {
  const store = await knex('stores').where({ id: storeId }).first('vat_number', 'legal_name', 'currency');
  const s = await knex('einvoice_settings').where({ store_id: storeId }).first();
  const docs = await knex('einvoice_documents as d')
    .leftJoin('invoices as i', 'i.id', 'd.invoice_id')
    .leftJoin('credit_notes as c', 'c.id', 'd.credit_note_id')
    .where('d.store_id', storeId)
    .orderBy('d.counter', 'desc')
    .limit(limit)
    .select(
      'd.id',
      'd.kind',
      'd.counter',
      'd.issued_at',
      'd.reporting_status',
      'd.warnings',
      'd.errors',
      'd.last_error',
      knex.raw('coalesce(i.number, c.number) as number'),
      knex.raw('coalesce(i.order_id, c.order_id) as order_id'),
    );
  return {
    store: {
      vat_number: store?.vat_number ?? null,
      legal_name: store?.legal_name ?? null,
      currency: String(store?.currency ?? ''),
    },
    settings: s
      ? {
          mode: s.mode,
          status: s.status,
          crn: s.crn,
          street: s.street,
          building_number: s.building_number,
          district: s.district,
          city: s.city,
          postal_zone: s.postal_zone,
          branch_name: s.branch_name,
          location: s.location,
          industry: s.industry,
          compliance_checks: (s.compliance_checks ?? {}) as Record<string, string>,
          certificate_expires_at: s.certificate_expires_at ? new Date(s.certificate_expires_at) : null,
          renewing: Boolean(s.pending_csr),
        }
      : null,
    documents: docs.map((d) => ({
      id: Number(d.id),
      kind: d.kind,
      number: d.number === null ? null : Number(d.number),
      counter: Number(d.counter),
      issued_at: new Date(d.issued_at),
      reporting_status: d.reporting_status,
      warnings: d.warnings ?? [],
      errors: d.errors ?? [],
      last_error: d.last_error,
      order_id: d.order_id === null ? null : Number(d.order_id),
      overdue:
        d.reporting_status === 'pending' &&
        now.getTime() - new Date(d.issued_at).getTime() > REPORTING_DEADLINE_MS,
    })),
  };
}

/** The signed XML of one of the store's documents (null: no such document in this store). */
export async function documentXml(
  knex: Knex,
  cipher: Cipher,
  storeId: number,
  documentId: number,
): Promise<{ xml: string; name: string } | null> {
  const row = await knex('einvoice_documents')
    .where({ id: documentId, store_id: storeId })
    .first('id', 'kind', 'counter');
  if (!row) return null;
  const doc = await ensureSigned(knex, cipher, Number(row.id));
  return {
    xml: String(doc.xml),
    name: `${row.kind === 'invoice' ? 'invoice' : 'credit-note'}-${Number(row.counter)}.xml`,
  };
}
