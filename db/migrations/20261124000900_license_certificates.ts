import type { Knex } from 'knex';

/**
 * Offline license certificates and plan entitlements:
 * - `licenses.not_before` (Unix seconds): certificates of the license issued before it are void. A trigger
 *   moves it on every path that takes rights away, whoever wrote the statement: the status becoming revoked
 *   (a refund or cancellation) or suspended, or the activation count going down (a reset or deactivation).
 *   It is set one second past the current second (and always past its previous value), so a certificate
 *   issued in that same second before the change is void too (issuance never stamps a certificate earlier
 *   than `not_before`).
 * - `product_plans.features`: the plan's named entitlements, e.g. {"pro_export": true, "max_projects": 10}.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('licenses', (t) => {
    t.bigInteger('not_before').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('product_plans', (t) => {
    t.jsonb('features').notNullable().defaultTo('{}');
  });
  await knex.raw(`
    create function licenses_bump_not_before() returns trigger language plpgsql as $$
    begin
      if (new.status is distinct from old.status and new.status in ('revoked', 'suspended'))
         or new.activations_count < old.activations_count then
        new.not_before := greatest(old.not_before + 1, floor(extract(epoch from clock_timestamp()))::bigint + 1);
      end if;
      return new;
    end
    $$`);
  await knex.raw(`
    create trigger licenses_not_before before update of status, activations_count on licenses
    for each row execute function licenses_bump_not_before()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists licenses_not_before on licenses');
  await knex.raw('drop function if exists licenses_bump_not_before()');
  await knex.schema.alterTable('product_plans', (t) => {
    t.dropColumn('features');
  });
  await knex.schema.alterTable('licenses', (t) => {
    t.dropColumn('not_before');
  });
}
