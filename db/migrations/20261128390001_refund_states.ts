import type { Knex } from 'knex';

/**
 * A refund's own states (shared/services/refunds/CONTEXT.md, docs/merchant.md "Refunds"): `requested` (the
 * row is written, the provider not asked yet), `sent` (the worker has asked the provider at least once and
 * has no final answer: an outage, a pending answer), `succeeded`, `failed`. They replace `pending`: a pending
 * refund the worker never tried is `requested`, one it tried (`attempts` above 0) is `sent`. The Merchant
 * API keeps answering `status: pending` for both (its `state` field names them).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table refunds drop constraint refunds_status');
  await knex.raw('drop index if exists refunds_pending_idx');
  await knex.raw(`update refunds set status = case when attempts > 0 then 'sent' else 'requested' end
    where status = 'pending'`);
  await knex.raw(`alter table refunds alter column status set default 'requested',
    add constraint refunds_status check (status in ('requested', 'sent', 'succeeded', 'failed'))`);
  // The sweep looks for provider refunds without an answer.
  await knex.raw(
    `create index refunds_open_idx on refunds (created_at) where status in ('requested', 'sent')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table refunds drop constraint refunds_status');
  await knex.raw('drop index if exists refunds_open_idx');
  await knex.raw(`update refunds set status = 'pending' where status in ('requested', 'sent')`);
  await knex.raw(`alter table refunds alter column status set default 'pending',
    add constraint refunds_status check (status in ('pending', 'succeeded', 'failed'))`);
  await knex.raw(`create index refunds_pending_idx on refunds (created_at) where status = 'pending'`);
}
