import type { Knex } from 'knex';

/**
 * Jobs whose request was answered as refused although their enqueue may still reach Redis (it timed
 * out for us, not necessarily for Redis). The job's processor finds its id here and does nothing.
 * Written only on that failure path; rows older than a week are purged by the outbox relay.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('abandoned_jobs', (t) => {
    t.text('job_id').primary();
    t.text('queue').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('abandoned_jobs');
}
