import type { Knex } from 'knex';

/**
 * Jobs written in the same transaction as the change that calls for them (shared/queues/outbox.ts). The
 * writer hands each job to BullMQ once its transaction has committed and deletes the row; a row left
 * behind (Redis out of reach at that moment, the process killed) is handed over by the `relay-outbox`
 * maintenance task. So a committed change always gets its job, and a change rolled back never does.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('job_outbox', (t) => {
    t.bigIncrements('id');
    t.text('queue').notNullable();
    t.text('job_id').notNullable();
    t.jsonb('data').notNullable();
    t.jsonb('opts').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('job_outbox');
}
