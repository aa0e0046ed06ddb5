import type { Knex } from 'knex';

/**
 * The FiveM command queue as the game server sees it:
 * - fivem_servers: several named secrets per store (one per game server), each revocable;
 * - fivem_commands: a lease (leased_until, leased_by, lease_count) so a listed command is handed to one
 *   server at a time and comes back when it is not acknowledged; a delay (available_at); an optional
 *   "needs N free inventory slots" condition; the states pending, executed, withdrawn, expired and failed
 *   (a command that could never run: no valid player);
 * - product_fivem_commands: templates run on purchase (as before) or on refund, with a delay and the
 *   inventory condition.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fivem_servers', (t) => {
    t.timestamp('revoked_at', { useTz: true });
  });

  await knex.schema.alterTable('product_fivem_commands', (t) => {
    t.string('run_on', 20).notNullable().defaultTo('purchase');
    t.integer('delay_seconds').notNullable().defaultTo(0);
    t.integer('inventory_slots');
  });
  // Raw: knex's check() on an altered table does not bind column names.
  await knex.raw(
    "alter table product_fivem_commands add constraint product_fivem_commands_run_on_check check (run_on in ('purchase', 'refund'))",
  );
  await knex.raw(
    'alter table product_fivem_commands add constraint product_fivem_commands_delay_check check (delay_seconds between 0 and 2592000)',
  );
  await knex.raw(
    'alter table product_fivem_commands add constraint product_fivem_commands_slots_check check (inventory_slots is null or inventory_slots between 1 and 1000)',
  );

  await knex.schema.alterTable('fivem_commands', (t) => {
    t.string('kind', 20).notNullable().defaultTo('purchase'); // purchase or refund (the template's run_on)
    t.timestamp('available_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.integer('inventory_slots');
    t.timestamp('leased_until', { useTz: true });
    t.integer('leased_by').references('fivem_servers.id').onDelete('SET NULL');
    t.integer('lease_count').notNullable().defaultTo(0);
    t.timestamp('executed_at', { useTz: true });
    t.integer('executed_by').references('fivem_servers.id').onDelete('SET NULL');
    t.timestamp('withdrawn_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
  });
  await knex('fivem_commands').where('status', 'delivered').update({ status: 'executed' });
  await knex.raw('update fivem_commands set executed_at = delivered_at where status = ?', ['executed']);
  await knex.raw(
    "alter table fivem_commands add constraint fivem_commands_status_check check (status in ('pending', 'executed', 'withdrawn', 'expired', 'failed'))",
  );
  await knex.raw(
    "alter table fivem_commands add constraint fivem_commands_kind_check check (kind in ('purchase', 'refund'))",
  );
  // The online listing, `data.players` and the unknown-player check look commands up by player.
  await knex.raw('create index fivem_commands_store_player on fivem_commands (store_id, player_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists fivem_commands_store_player');
  await knex.raw('alter table fivem_commands drop constraint if exists fivem_commands_kind_check');
  await knex.raw('alter table fivem_commands drop constraint if exists fivem_commands_status_check');
  await knex('fivem_commands').where('status', 'executed').update({ status: 'delivered' });
  await knex('fivem_commands').whereIn('status', ['withdrawn', 'expired']).update({ status: 'failed' });
  await knex.schema.alterTable('fivem_commands', (t) => {
    for (const column of [
      'kind',
      'available_at',
      'inventory_slots',
      'leased_until',
      'leased_by',
      'lease_count',
      'executed_at',
      'executed_by',
      'withdrawn_at',
      'expires_at',
    ])
      t.dropColumn(column);
  });
  for (const check of ['run_on', 'delay', 'slots'])
    await knex.raw(
      `alter table product_fivem_commands drop constraint if exists product_fivem_commands_${check}_check`,
    );
  await knex.schema.alterTable('product_fivem_commands', (t) => {
    t.dropColumn('run_on');
    t.dropColumn('delay_seconds');
    t.dropColumn('inventory_slots');
  });
  await knex.schema.alterTable('fivem_servers', (t) => {
    t.dropColumn('revoked_at');
  });
}
