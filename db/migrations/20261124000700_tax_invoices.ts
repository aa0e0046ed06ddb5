import type { Knex } from 'knex';

/**
 * Simplified tax invoices (ZATCA phase one) and credit notes.
 *
 * - stores: the seller's legal name, VAT registration number and address. A store with a `vat_number`
 *   issues invoices; one without gives its buyers a plain receipt.
 * - checkouts / orders: `tax_rate_bp`, the rate the order's `tax_minor` was split at, kept with the sale so
 *   that a later change of the store's setting never rewrites a past invoice.
 * - tax_document_counters: one row per store and series (invoice, credit_note), taken with a row lock in
 *   the transaction that issues the document, so numbers are gapless: a rolled-back payment gives its
 *   number back with everything else.
 * - invoices / credit_notes: what was issued, as issued (seller, amounts, lines, the QR's TLV). Both are
 *   append-only: a trigger refuses every UPDATE and DELETE of a row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('stores', (t) => {
    t.string('legal_name', 200);
    t.string('vat_number', 15);
    t.string('vat_address', 500);
  });
  await knex.schema.alterTable('checkouts', (t) => {
    t.integer('tax_rate_bp').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('orders', (t) => {
    t.integer('tax_rate_bp').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('tax_document_counters', (t) => {
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.string('series', 20).notNullable();
    t.integer('last_number').notNullable();
    t.primary(['store_id', 'series']);
    t.check("?? in ('invoice', 'credit_note')", ['series'], 'tax_document_counters_series_check');
  });

  await knex.schema.createTable('invoices', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE').unique();
    t.integer('number').notNullable();
    t.timestamp('issued_at', { useTz: true }).notNullable();
    t.string('seller_name', 200).notNullable();
    t.string('vat_number', 15).notNullable();
    t.string('seller_address', 500);
    t.string('currency', 3).notNullable();
    t.bigInteger('subtotal_minor').notNullable();
    t.bigInteger('discount_minor').notNullable();
    t.bigInteger('total_minor').notNullable();
    t.bigInteger('vat_minor').notNullable();
    t.integer('vat_rate_bp').notNullable();
    t.jsonb('lines').notNullable();
    t.text('qr').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['store_id', 'number']);
    t.index(['store_id', 'issued_at']);
  });

  await knex.schema.createTable('credit_notes', (t) => {
    t.increments('id');
    t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE');
    t.integer('invoice_id').notNullable().references('invoices.id').onDelete('CASCADE').index();
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.timestamp('issued_at', { useTz: true }).notNullable();
    t.string('seller_name', 200).notNullable();
    t.string('vat_number', 15).notNullable();
    t.string('currency', 3).notNullable();
    t.bigInteger('total_minor').notNullable();
    t.bigInteger('vat_minor').notNullable();
    t.integer('vat_rate_bp').notNullable();
    t.string('reason', 500).notNullable();
    // The refund this note answers (a refund row's id, or "order-refunded"): the same refund twice is one note.
    t.string('refund_key', 100).notNullable();
    t.text('qr').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['store_id', 'number']);
    t.unique(['invoice_id', 'refund_key']);
    t.index(['store_id', 'issued_at']);
    t.check('?? > 0', ['total_minor'], 'credit_notes_total_check');
  });

  await knex.raw(`
    create function tax_documents_append_only() returns trigger language plpgsql as $$
    begin
      raise exception '% rows are never edited or deleted once issued', TG_TABLE_NAME;
    end $$;
    create trigger invoices_append_only before update or delete on invoices
      for each row execute function tax_documents_append_only();
    create trigger credit_notes_append_only before update or delete on credit_notes
      for each row execute function tax_documents_append_only();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('credit_notes');
  await knex.schema.dropTable('invoices');
  await knex.raw('drop function if exists tax_documents_append_only()');
  await knex.schema.dropTable('tax_document_counters');
  await knex.schema.alterTable('orders', (t) => t.dropColumn('tax_rate_bp'));
  await knex.schema.alterTable('checkouts', (t) => t.dropColumn('tax_rate_bp'));
  await knex.schema.alterTable('stores', (t) => {
    t.dropColumn('legal_name');
    t.dropColumn('vat_number');
    t.dropColumn('vat_address');
  });
}
