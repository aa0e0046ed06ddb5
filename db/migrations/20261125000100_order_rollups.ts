import type { Knex } from 'knex';

/**
 * Per-store order rollups for the Merchant statistics and the order list's count
 * (shared/services/statistics/CONTEXT.md; docs/performance.md, "Merchant reads on 100,000
 * orders"), kept by the database itself so that no writer can forget them:
 *
 * - `order_figure_deltas` / `order_figures_daily` and `order_figures_total`: orders and their totals per
 *   store, UTC day of `created_at` and status, and per store and status (all time, so that readers of
 *   all-time figures add six rows, not one per day of the store's history);
 * - `product_sales_deltas` / `product_sales`: units and revenue of the items of paid orders (status 3 or 4)
 *   per store and product.
 *
 * Statement-level triggers on `orders` and `order_items` append signed deltas (one row per store, day and
 * status a statement touches: an insert-only table, so concurrent checkouts of one store never wait on a
 * shared counter row). The `order-rollups` maintenance task folds them into the compacted tables
 * (shared/services/statistics/rollups.ts); readers add the compacted rows and the pending deltas.
 *
 * The delta tables have no foreign key: a store's deletion cascades to its orders, whose triggers then
 * append deltas for a store that is going; the compaction drops deltas of stores that no longer exist.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table order_figure_deltas (
      id bigserial primary key,
      store_id integer not null,
      day date not null,
      status smallint not null,
      orders integer not null,
      total_minor bigint not null
    );
    create index order_figure_deltas_store on order_figure_deltas (store_id);
    create table order_figures_daily (
      store_id integer not null references stores (id) on delete cascade,
      day date not null,
      status smallint not null,
      orders integer not null,
      total_minor bigint not null,
      -- The readers sum a store's rows straight from the index.
      primary key (store_id, day, status) include (orders, total_minor)
    );
    create table order_figures_total (
      store_id integer not null references stores (id) on delete cascade,
      status smallint not null,
      orders integer not null,
      total_minor bigint not null,
      primary key (store_id, status) include (orders, total_minor)
    );
    create table product_sales_deltas (
      id bigserial primary key,
      store_id integer not null,
      product_id integer not null,
      quantity bigint not null,
      revenue_minor bigint not null
    );
    create index product_sales_deltas_store on product_sales_deltas (store_id);
    create table product_sales (
      store_id integer not null references stores (id) on delete cascade,
      product_id integer not null,
      quantity bigint not null,
      revenue_minor bigint not null,
      primary key (store_id, product_id) include (quantity, revenue_minor)
    );
  `);

  // The rows a statement wrote (sign 1) and those it replaced or removed (sign -1): a trigger sees only
  // the transition tables of its own event, hence the text chosen by its operation.
  await knex.raw(`
    create function signed_rows(op text) returns text language sql immutable as $$
      select case op
        when 'INSERT' then 'select *, 1 as sign from new_rows'
        when 'DELETE' then 'select *, -1 as sign from old_rows'
        else 'select *, 1 as sign from new_rows union all select *, -1 from old_rows'
      end
    $$;
  `);
  // Orders: the net figures a statement changed, per store, UTC day and status.
  await knex.raw(`
    create function order_figures_note() returns trigger language plpgsql as $$
    begin
      execute format($q$
        insert into order_figure_deltas (store_id, day, status, orders, total_minor)
        select store_id, (created_at at time zone 'UTC')::date, status, sum(sign), sum(sign * total_minor)
          from (%s) r
         group by 1, 2, 3
        having sum(sign) <> 0 or sum(sign * total_minor) <> 0
      $q$, signed_rows(tg_op));
      return null;
    end $$;
  `);
  // Product sales follow an order's status: its items count while it is paid (3, 4).
  await knex.raw(`
    create function order_sales_note_status() returns trigger language plpgsql as $$
    begin
      insert into product_sales_deltas (store_id, product_id, quantity, revenue_minor)
      select o.store_id, i.product_id, sum(o.sign * i.quantity), sum(o.sign * i.total_minor)
        from (
          select id, store_id, 1 as sign from new_rows where status in (3, 4)
          union all
          select id, store_id, -1 from old_rows where status in (3, 4)
        ) o
        join order_items i on i.order_id = o.id and i.product_id is not null
       group by o.store_id, i.product_id
      having sum(o.sign * i.quantity) <> 0 or sum(o.sign * i.total_minor) <> 0;
      return null;
    end $$;
  `);
  // A paid order being deleted takes its items out before the cascade removes them; the items' own
  // trigger then finds no order and adds nothing.
  await knex.raw(`
    create function order_sales_note_delete() returns trigger language plpgsql as $$
    begin
      if old.status in (3, 4) then
        insert into product_sales_deltas (store_id, product_id, quantity, revenue_minor)
        select old.store_id, product_id, -sum(quantity), -sum(total_minor)
          from order_items where order_id = old.id and product_id is not null
         group by product_id;
      end if;
      return old;
    end $$;
  `);
  // Items written, changed or removed while their order is paid.
  await knex.raw(`
    create function order_items_sales_note() returns trigger language plpgsql as $$
    begin
      execute format($q$
        insert into product_sales_deltas (store_id, product_id, quantity, revenue_minor)
        select o.store_id, i.product_id, sum(i.sign * i.quantity), sum(i.sign * i.total_minor)
          from (%s) i
          join orders o on o.id = i.order_id and o.status in (3, 4)
         where i.product_id is not null
         group by 1, 2
        having sum(i.sign * i.quantity) <> 0 or sum(i.sign * i.total_minor) <> 0
      $q$, signed_rows(tg_op));
      return null;
    end $$;
  `);
  await knex.raw(`
    create trigger orders_figures_insert after insert on orders
      referencing new table as new_rows for each statement execute function order_figures_note();
    create trigger orders_figures_update after update on orders
      referencing old table as old_rows new table as new_rows for each statement execute function order_figures_note();
    create trigger orders_figures_delete after delete on orders
      referencing old table as old_rows for each statement execute function order_figures_note();
    create trigger orders_sales_update after update on orders
      referencing old table as old_rows new table as new_rows for each statement execute function order_sales_note_status();
    create trigger orders_sales_delete before delete on orders
      for each row execute function order_sales_note_delete();
    create trigger order_items_sales_insert after insert on order_items
      referencing new table as new_rows for each statement execute function order_items_sales_note();
    create trigger order_items_sales_update after update on order_items
      referencing old table as old_rows new table as new_rows for each statement execute function order_items_sales_note();
    create trigger order_items_sales_delete after delete on order_items
      referencing old table as old_rows for each statement execute function order_items_sales_note();
  `);

  // The orders already there (the triggers, created above, hold writers off until this commits).
  await knex.raw(`
    insert into order_figures_daily (store_id, day, status, orders, total_minor)
    select store_id, (created_at at time zone 'UTC')::date, status, count(*), sum(total_minor)
      from orders group by 1, 2, 3;
    insert into order_figures_total (store_id, status, orders, total_minor)
    select store_id, status, sum(orders), sum(total_minor) from order_figures_daily group by 1, 2;
    insert into product_sales (store_id, product_id, quantity, revenue_minor)
    select o.store_id, i.product_id, sum(i.quantity), sum(i.total_minor)
      from order_items i join orders o on o.id = i.order_id
     where o.status in (3, 4) and i.product_id is not null
     group by 1, 2;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger orders_figures_insert on orders;
    drop trigger orders_figures_update on orders;
    drop trigger orders_figures_delete on orders;
    drop trigger orders_sales_update on orders;
    drop trigger orders_sales_delete on orders;
    drop trigger order_items_sales_insert on order_items;
    drop trigger order_items_sales_update on order_items;
    drop trigger order_items_sales_delete on order_items;
    drop function order_figures_note();
    drop function order_sales_note_status();
    drop function order_sales_note_delete();
    drop function order_items_sales_note();
    drop function signed_rows(text);
    drop table product_sales, product_sales_deltas, order_figures_total, order_figures_daily, order_figure_deltas;
  `);
}
