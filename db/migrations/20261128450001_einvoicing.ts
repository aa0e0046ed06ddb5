import type { Knex } from 'knex';

/**
 * E-invoicing phase 2 (ZATCA integration, docs/einvoicing.md).
 *
 * - einvoice_settings: one row per store that is onboarded (or onboarding): the seller's address fields
 *   ZATCA's invoice needs, the EGS unit's identity, the signing key (sealed), the CSR, the compliance and
 *   production CSIDs (certificate as base64 DER; the API secrets sealed), the compliance checks passed, and
 *   a pending key and CSR while a renewal is under way. `mode` `simulation`: a self-issued test
 *   certificate (fixture `einvoicing: "simulation"`); `zatca`: onboarded through ZATCA's API.
 * - einvoice_chains: one row per store: the last counter and the last document's hash, taken with a row
 *   lock in the transaction that issues a document, so a store's documents form one chain.
 * - einvoice_documents: each phase-2 document (invoice or credit note) as chained (uuid, counter, hash,
 *   previous hash, the XML the hash covers) and, once signed, the signed XML and its QR; plus its reporting
 *   state (pending, reported, rejected), ZATCA's warnings and errors, and the next attempt after an outage.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('einvoice_settings', (t) => {
    t.integer('store_id').primary().references('stores.id').onDelete('CASCADE');
    t.string('mode', 12).notNullable();
    t.string('status', 16).notNullable();
    t.string('crn', 20);
    t.string('street', 127);
    t.string('building_number', 4);
    t.string('district', 127);
    t.string('city', 127);
    t.string('postal_zone', 5);
    t.string('branch_name', 64);
    t.string('location', 64);
    t.string('industry', 64);
    t.string('egs_serial', 200);
    t.text('private_key_encrypted');
    t.text('csr');
    t.text('compliance_certificate');
    t.text('compliance_secret_encrypted');
    t.string('compliance_request_id', 64);
    t.jsonb('compliance_checks').notNullable().defaultTo('{}');
    t.text('certificate');
    t.text('csid_secret_encrypted');
    t.timestamp('certificate_expires_at', { useTz: true });
    t.text('pending_private_key_encrypted');
    t.text('pending_csr');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check("?? in ('simulation', 'zatca')", ['mode'], 'einvoice_settings_mode_check');
    t.check(
      "?? in ('keys', 'compliance', 'checked', 'active')",
      ['status'],
      'einvoice_settings_status_check',
    );
  });

  await knex.schema.createTable('einvoice_chains', (t) => {
    t.integer('store_id').primary().references('stores.id').onDelete('CASCADE');
    t.integer('last_counter').notNullable();
    t.string('last_hash', 100).notNullable();
  });

  await knex.schema.createTable('einvoice_documents', (t) => {
    t.bigIncrements('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.string('kind', 12).notNullable();
    t.integer('invoice_id').references('invoices.id').onDelete('CASCADE');
    t.integer('credit_note_id').references('credit_notes.id').onDelete('CASCADE');
    t.integer('counter').notNullable();
    t.uuid('uuid').notNullable().unique();
    t.timestamp('issued_at', { useTz: true }).notNullable();
    t.string('hash', 100).notNullable();
    t.string('previous_hash', 100).notNullable();
    // What the document is built from (seller, lines, amounts, QR tags 1-5), so it is signed as chained.
    t.jsonb('document').notNullable();
    t.text('unsigned_xml').notNullable();
    t.text('xml');
    t.text('qr');
    t.timestamp('signed_at', { useTz: true });
    t.string('reporting_status', 10).notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('reported_at', { useTz: true });
    t.jsonb('warnings').notNullable().defaultTo('[]');
    t.jsonb('errors').notNullable().defaultTo('[]');
    t.string('last_error', 500);
    t.unique(['store_id', 'counter']);
    t.unique(['invoice_id']);
    t.unique(['credit_note_id']);
    t.index(['reporting_status', 'next_attempt_at']);
    t.check("?? in ('invoice', 'credit_note')", ['kind'], 'einvoice_documents_kind_check');
    t.check(
      "?? in ('pending', 'reported', 'rejected')",
      ['reporting_status'],
      'einvoice_documents_status_check',
    );
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('einvoice_documents');
  await knex.schema.dropTable('einvoice_chains');
  await knex.schema.dropTable('einvoice_settings');
}
