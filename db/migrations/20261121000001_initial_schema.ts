import type { Knex } from 'knex';

/**
 * The whole platform's data model. Money is integer minor units (bigint); percentages are basis points.
 * The database holds the invariants the spec depends on: one order per checkout, one wishlist row per
 * customer and product, unique license keys, a code key sold at most once, coupon uses never above the
 * limit, order status codes 1 to 6.
 */

const PAYMENT_METHODS = ['card', 'mada', 'stcpay', 'applepay', 'paypal', 'bank', 'coinbase'];
const PRODUCT_TYPES = ['product', 'code', 'service', 'subscription'];
const PLAN_DURATIONS = ['monthly', 'quarterly', 'yearly', 'lifetime'];
const LICENSE_STATUSES = ['generated', 'active', 'expired', 'suspended', 'revoked'];

function timestamps(t: Knex.CreateTableBuilder, knex: Knex): void {
  t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
}

function storeRef(t: Knex.CreateTableBuilder): void {
  t.integer('store_id').notNullable().references('stores.id').onDelete('CASCADE').index();
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('platform_settings', (t) => {
    t.string('key', 100).primary();
    t.text('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  // ---------------------------------------------------------------- stores and their access
  await knex.schema.createTable('stores', (t) => {
    t.increments('id');
    t.string('name', 200).notNullable();
    t.string('currency', 3).notNullable();
    t.string('plan', 10).notNullable().defaultTo('free');
    // none: prices carry no tax; inclusive: prices already include it; exclusive: tax is added on top.
    t.string('tax_mode', 10).notNullable().defaultTo('none');
    t.integer('tax_rate_bp').notNullable().defaultTo(0);
    t.string('embed_key', 100).notNullable().unique();
    t.specificType('allowed_origins', 'text[]').notNullable().defaultTo('{}');
    t.string('fixture_ref', 100).unique();
    timestamps(t, knex);
    t.check("?? in ('paid', 'free')", ['plan'], 'stores_plan_check');
    t.check("?? in ('none', 'inclusive', 'exclusive')", ['tax_mode'], 'stores_tax_mode_check');
    t.check('?? >= 0 and ?? <= 10000', ['tax_rate_bp', 'tax_rate_bp'], 'stores_tax_rate_check');
  });

  await knex.schema.createTable('store_domains', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('domain', 253).notNullable().unique(); // lower-case host, no port
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('store_payment_methods', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('method', 20).notNullable();
    // sandbox, moyasar, coinbase, paypal, bank
    t.string('provider', 20).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    // Public settings: PayPal e-mail or pay-by-link, bank details, per-method amount bounds.
    t.jsonb('settings').notNullable().defaultTo('{}');
    t.bigInteger('min_amount_minor');
    t.bigInteger('max_amount_minor');
    // Provider credentials, AES-256-GCM encrypted with the platform secret; never logged.
    t.text('credentials_encrypted');
    t.integer('position').notNullable().defaultTo(0);
    timestamps(t, knex);
    t.unique(['store_id', 'method']);
    t.check(`?? in (${PAYMENT_METHODS.map((m) => `'${m}'`).join(', ')})`, ['method'], 'spm_method_check');
  });

  await knex.schema.createTable('merchant_tokens', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('name', 100).notNullable().defaultTo('default');
    t.string('token_hash', 64).notNullable().unique(); // sha256 hex of the bearer token
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('fivem_servers', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('name', 100).notNullable().defaultTo('default');
    t.string('secret_hash', 64).notNullable().unique();
    t.timestamp('last_seen_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('blocked_phones', (t) => {
    t.increments('id');
    // null store: blocked on the whole platform.
    t.integer('store_id').references('stores.id').onDelete('CASCADE');
    t.string('country_code', 4).notNullable();
    t.string('phone', 20).notNullable();
    t.string('e164', 20).notNullable().index(); // country code + national number, digits only
    t.string('reason', 200);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'create unique index blocked_phones_scope_unique on blocked_phones (coalesce(store_id, 0), e164)',
  );

  // ---------------------------------------------------------------- customers and authentication
  await knex.schema.createTable('customers', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('first_name', 100).notNullable();
    t.string('last_name', 100).notNullable();
    t.string('email', 254).notNullable();
    t.string('country_code', 4).notNullable();
    t.string('phone', 20).notNullable();
    t.string('e164', 20).notNullable().index(); // looked up across all stores
    t.string('fixture_ref', 100);
    timestamps(t, knex);
    t.unique(['store_id', 'e164']);
  });

  await knex.schema.createTable('customer_access_tokens', (t) => {
    t.increments('id');
    t.integer('customer_id').notNullable().references('customers.id').onDelete('CASCADE').index();
    storeRef(t);
    t.string('token_hash', 64).notNullable().unique();
    // embed: ['embed:checkout', 'embed:validate']; storefront: ['storefront']
    t.specificType('abilities', 'text[]').notNullable();
    t.string('name', 50).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('otp_sessions', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('channel', 20).notNullable(); // embed or storefront: the guard its token will serve
    t.integer('product_id'); // embed sessions start from a product
    t.string('token_hash', 64).notNullable().unique(); // sha256 of session_token
    t.string('country_code', 4).notNullable();
    t.string('phone', 20).notNullable();
    t.string('e164', 20).notNullable().index();
    t.string('code_hmac', 64); // HMAC-SHA256 of the current code; null once consumed
    t.text('code_encrypted'); // for the sending job only; cleared once the message is handed over
    t.integer('code_version').notNullable().defaultTo(1);
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('resends').notNullable().defaultTo(0);
    // pending, verified, registration_open, registration_used
    t.string('status', 30).notNullable().defaultTo('pending');
    t.integer('customer_id').references('customers.id').onDelete('SET NULL');
    t.timestamp('last_sent_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    t.timestamp('verified_at', { useTz: true });
    timestamps(t, knex);
    t.check('?? >= 0', ['attempts'], 'otp_attempts_check');
  });

  // ---------------------------------------------------------------- catalogue
  await knex.schema.createTable('categories', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('name', 200).notNullable();
    t.string('slug', 200).notNullable();
    t.integer('position').notNullable().defaultTo(0);
    t.string('fixture_ref', 100);
    timestamps(t, knex);
    t.unique(['store_id', 'slug']);
  });

  await knex.schema.createTable('products', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('name', 200).notNullable();
    t.string('slug', 200).notNullable();
    t.text('description');
    t.string('type', 20).notNullable();
    t.bigInteger('price_minor').notNullable();
    t.bigInteger('sale_price_minor');
    t.boolean('active').notNullable().defaultTo(true);
    t.integer('stock'); // null: unlimited
    t.string('image_url', 2000);
    // Custom fields in array order: [{type, label, required, options: [{label, price_minor}]}]
    t.jsonb('fields').notNullable().defaultTo('[]');
    t.boolean('license_enabled').notNullable().defaultTo(false);
    t.string('license_prefix', 20);
    t.string('license_lock_type', 10);
    t.integer('license_max_activations').notNullable().defaultTo(0); // 0: unlimited
    t.boolean('license_encrypt').notNullable().defaultTo(false);
    t.text('license_secret_encrypted'); // AES-256-GCM key for encrypted verify responses
    t.string('fixture_ref', 100);
    timestamps(t, knex);
    t.unique(['store_id', 'slug']);
    t.check(`?? in (${PRODUCT_TYPES.map((x) => `'${x}'`).join(', ')})`, ['type'], 'products_type_check');
    t.check('?? >= 0', ['price_minor'], 'products_price_check');
    t.check('?? is null or ?? >= 0', ['sale_price_minor', 'sale_price_minor'], 'products_sale_price_check');
    t.check('?? is null or ?? >= 0', ['stock', 'stock'], 'products_stock_check');
    t.check(
      "?? is null or ?? in ('none', 'hwid', 'ip')",
      ['license_lock_type', 'license_lock_type'],
      'products_lock_type_check',
    );
  });

  await knex.schema.createTable('product_categories', (t) => {
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE');
    t.integer('category_id').notNullable().references('categories.id').onDelete('CASCADE').index();
    t.primary(['product_id', 'category_id']);
  });

  await knex.schema.createTable('product_plans', (t) => {
    t.increments('id');
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE').index();
    t.string('name', 200).notNullable();
    t.bigInteger('price_minor').notNullable();
    t.string('duration', 20).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.integer('position').notNullable().defaultTo(0);
    t.string('fixture_ref', 100);
    timestamps(t, knex);
    t.check(
      `?? in (${PLAN_DURATIONS.map((x) => `'${x}'`).join(', ')})`,
      ['duration'],
      'plans_duration_check',
    );
    t.check('?? >= 0', ['price_minor'], 'plans_price_check');
  });

  await knex.schema.createTable('product_fivem_commands', (t) => {
    t.increments('id');
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE').index();
    t.string('command', 1000).notNullable();
    t.boolean('require_online').notNullable().defaultTo(false);
    t.integer('position').notNullable().defaultTo(0);
  });

  // ---------------------------------------------------------------- coupons
  await knex.schema.createTable('coupons', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('code', 100).notNullable();
    t.string('type', 20).notNullable(); // percentage (amount in basis points) or fixed (minor units)
    t.bigInteger('amount').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.integer('max_uses'); // null: unlimited
    t.integer('uses_count').notNullable().defaultTo(0);
    t.bigInteger('min_order_minor');
    t.specificType('payment_restrictions', 'text[]').notNullable().defaultTo('{}');
    t.timestamp('starts_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    timestamps(t, knex);
    t.check("?? in ('percentage', 'fixed')", ['type'], 'coupons_type_check');
    t.check('?? >= 0', ['amount'], 'coupons_amount_check');
    t.check("?? <> 'percentage' or ?? <= 10000", ['type', 'amount'], 'coupons_percentage_check');
    t.check(
      '?? >= 0 and (?? is null or ?? <= ??)',
      ['uses_count', 'max_uses', 'uses_count', 'max_uses'],
      'coupons_uses_check',
    );
  });
  await knex.raw('create unique index coupons_store_code_unique on coupons (store_id, lower(code))');

  await knex.schema.createTable('coupon_products', (t) => {
    t.integer('coupon_id').notNullable().references('coupons.id').onDelete('CASCADE');
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE').index();
    t.primary(['coupon_id', 'product_id']);
  });

  // ---------------------------------------------------------------- checkouts, payments, orders
  await knex.schema.createTable('checkouts', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('token_hash', 64).notNullable().unique(); // sha256 of checkout_url (a bearer secret)
    t.string('source', 20).notNullable().defaultTo('embed'); // embed, storefront, merchant
    t.integer('customer_id').references('customers.id').onDelete('SET NULL').index();
    t.string('customer_first_name', 100).notNullable();
    t.string('customer_last_name', 100).notNullable();
    t.string('customer_email', 254).notNullable();
    t.string('customer_country_code', 10).notNullable();
    t.string('customer_phone', 20).notNullable();
    t.integer('product_id').notNullable().references('products.id');
    t.integer('plan_id').references('product_plans.id');
    t.integer('quantity').notNullable();
    t.bigInteger('unit_price_minor').notNullable();
    t.bigInteger('addons_minor').notNullable().defaultTo(0);
    t.bigInteger('subtotal_minor').notNullable();
    t.bigInteger('discount_minor').notNullable().defaultTo(0);
    t.bigInteger('tax_minor').notNullable().defaultTo(0);
    t.bigInteger('total_minor').notNullable();
    t.string('currency', 3).notNullable();
    t.integer('coupon_id').references('coupons.id').onDelete('SET NULL');
    t.string('customer_note', 500);
    t.jsonb('fields').notNullable().defaultTo('{}');
    // created, payment_initiated, paid, expired, cancelled
    t.string('status', 20).notNullable().defaultTo('created');
    t.boolean('reserved').notNullable().defaultTo(false); // holds stock / code keys until paid or expired
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    timestamps(t, knex);
    t.check('?? >= 1', ['quantity'], 'checkouts_quantity_check');
    t.check('?? >= 0', ['total_minor'], 'checkouts_total_check');
  });

  await knex.schema.createTable('checkout_uploads', (t) => {
    t.increments('id');
    t.integer('checkout_id').notNullable().references('checkouts.id').onDelete('CASCADE').index();
    t.integer('field_index').notNullable();
    t.string('storage_driver', 20).notNullable();
    t.string('storage_key', 500).notNullable();
    t.string('original_name', 255).notNullable();
    t.string('mime_type', 100).notNullable();
    t.integer('size_bytes').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['checkout_id', 'field_index']);
  });

  await knex.schema.createTable('payments', (t) => {
    t.increments('id');
    t.integer('checkout_id').notNullable().references('checkouts.id').onDelete('CASCADE').index();
    storeRef(t);
    t.string('method', 20).notNullable();
    t.string('provider', 20).notNullable();
    // pending (job queued), initiated (provider session exists), paid, failed, expired, refunded
    t.string('status', 20).notNullable().defaultTo('pending');
    t.bigInteger('amount_minor').notNullable();
    t.string('currency', 3).notNullable();
    t.string('provider_payment_id', 200);
    t.string('provider_url', 2000);
    t.string('error_message', 500);
    t.timestamp('paid_at', { useTz: true });
    timestamps(t, knex);
    t.unique(['provider', 'provider_payment_id']);
  });

  await knex.schema.createTable('payment_events', (t) => {
    t.increments('id');
    t.integer('payment_id').notNullable().references('payments.id').onDelete('CASCADE').index();
    t.string('from_status', 20);
    t.string('to_status', 20).notNullable();
    t.string('source', 20).notNullable(); // api, worker, webhook, sweep, merchant
    t.jsonb('data').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('webhook_events', (t) => {
    t.increments('id');
    t.string('provider', 20).notNullable();
    t.string('event_id', 200).notNullable();
    t.jsonb('payload').notNullable();
    t.timestamp('processed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['provider', 'event_id']);
  });

  await knex.schema.createTable('orders', (t) => {
    t.increments('id');
    storeRef(t);
    t.integer('checkout_id').references('checkouts.id').onDelete('SET NULL').unique(); // one order per checkout
    t.integer('customer_id').references('customers.id').onDelete('SET NULL').index();
    t.smallint('status').notNullable().defaultTo(1);
    t.string('customer_first_name', 100).notNullable();
    t.string('customer_last_name', 100).notNullable();
    t.string('customer_email', 254).notNullable();
    t.string('customer_country_code', 10).notNullable();
    t.string('customer_phone', 20).notNullable();
    t.bigInteger('subtotal_minor').notNullable();
    t.bigInteger('discount_minor').notNullable().defaultTo(0);
    t.bigInteger('tax_minor').notNullable().defaultTo(0);
    t.bigInteger('total_minor').notNullable();
    t.string('currency', 3).notNullable();
    t.integer('coupon_id').references('coupons.id').onDelete('SET NULL');
    t.string('payment_method', 20);
    t.integer('payment_id').references('payments.id').onDelete('SET NULL');
    t.string('customer_note', 500);
    t.string('source', 20).notNullable().defaultTo('embed');
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('cancelled_at', { useTz: true });
    t.timestamp('refunded_at', { useTz: true });
    timestamps(t, knex);
    t.check('?? between 1 and 6', ['status'], 'orders_status_check');
    t.check('?? >= 0', ['total_minor'], 'orders_total_check');
  });

  await knex.schema.createTable('order_items', (t) => {
    t.increments('id');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE').index();
    t.integer('product_id').references('products.id').onDelete('SET NULL');
    t.integer('plan_id').references('product_plans.id').onDelete('SET NULL');
    t.string('name', 200).notNullable();
    t.string('type', 20).notNullable();
    t.integer('quantity').notNullable();
    t.bigInteger('unit_price_minor').notNullable();
    t.bigInteger('total_minor').notNullable();
    t.jsonb('fields').notNullable().defaultTo('{}');
    t.timestamp('delivered_at', { useTz: true });
    timestamps(t, knex);
    t.check('?? >= 1', ['quantity'], 'order_items_quantity_check');
  });

  await knex.schema.createTable('product_codes', (t) => {
    t.increments('id');
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE');
    t.text('code').notNullable();
    t.string('status', 20).notNullable().defaultTo('available'); // available, reserved, sold
    t.integer('checkout_id').references('checkouts.id').onDelete('SET NULL').index();
    // A key belongs to at most one order item: it is sold at most once.
    t.integer('order_item_id').references('order_items.id').onDelete('RESTRICT').index();
    t.timestamp('sold_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['product_id', 'code']);
    t.check("?? in ('available', 'reserved', 'sold')", ['status'], 'product_codes_status_check');
    t.check("(?? = 'sold') = (?? is not null)", ['status', 'order_item_id'], 'product_codes_sold_check');
  });
  await knex.raw(
    "create index product_codes_available on product_codes (product_id, id) where status = 'available'",
  );

  await knex.schema.createTable('coupon_uses', (t) => {
    t.increments('id');
    t.integer('coupon_id').notNullable().references('coupons.id').onDelete('CASCADE');
    t.integer('order_id').notNullable().references('orders.id').onDelete('CASCADE');
    t.integer('customer_id').references('customers.id').onDelete('SET NULL');
    t.bigInteger('discount_minor').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['coupon_id', 'order_id']);
  });

  // ---------------------------------------------------------------- fulfilment
  await knex.schema.createTable('licenses', (t) => {
    t.increments('id');
    storeRef(t);
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE').index();
    t.integer('plan_id').references('product_plans.id').onDelete('SET NULL');
    t.integer('customer_id').references('customers.id').onDelete('SET NULL');
    t.integer('order_id').references('orders.id').onDelete('SET NULL').index();
    t.integer('order_item_id').references('order_items.id').onDelete('SET NULL');
    t.string('key', 100).notNullable().unique();
    t.string('status', 20).notNullable().defaultTo('generated');
    t.string('lock_type', 10).notNullable().defaultTo('none');
    t.integer('max_activations').notNullable().defaultTo(0);
    t.timestamp('starts_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.jsonb('metadata');
    t.string('fixture_ref', 100);
    timestamps(t, knex);
    t.check(
      `?? in (${LICENSE_STATUSES.map((x) => `'${x}'`).join(', ')})`,
      ['status'],
      'licenses_status_check',
    );
    t.check("?? in ('none', 'hwid', 'ip')", ['lock_type'], 'licenses_lock_type_check');
  });
  await knex.raw("create index licenses_expiring on licenses (expires_at) where status = 'active'");

  await knex.schema.createTable('license_activations', (t) => {
    t.increments('id');
    t.integer('license_id').notNullable().references('licenses.id').onDelete('CASCADE');
    t.string('identifier', 255).notNullable(); // hardware id or IP address, by the license's lock type
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['license_id', 'identifier']);
  });

  await knex.schema.createTable('subscriptions', (t) => {
    t.increments('id');
    storeRef(t);
    t.integer('customer_id').references('customers.id').onDelete('SET NULL').index();
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE');
    t.integer('plan_id').notNullable().references('product_plans.id');
    t.integer('order_id').references('orders.id').onDelete('SET NULL');
    t.integer('order_item_id').references('order_items.id').onDelete('SET NULL').unique();
    t.string('status', 20).notNullable().defaultTo('active'); // active, cancelled, expired
    t.timestamp('current_period_start', { useTz: true }).notNullable();
    t.timestamp('current_period_end', { useTz: true }); // null: lifetime
    t.timestamp('cancelled_at', { useTz: true });
    timestamps(t, knex);
  });

  await knex.schema.createTable('fivem_commands', (t) => {
    t.increments('id');
    storeRef(t);
    t.integer('order_id').references('orders.id').onDelete('CASCADE').index();
    t.integer('order_item_id').references('order_items.id').onDelete('CASCADE');
    t.string('player_id', 100);
    t.string('command', 1000).notNullable();
    t.boolean('require_online').notNullable().defaultTo(false);
    t.string('status', 20).notNullable().defaultTo('pending'); // pending, delivered, failed
    t.timestamp('delivered_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "create index fivem_commands_pending on fivem_commands (store_id, id) where status = 'pending'",
  );

  // ---------------------------------------------------------------- engagement
  await knex.schema.createTable('wishlist_items', (t) => {
    t.increments('id');
    t.integer('customer_id').notNullable().references('customers.id').onDelete('CASCADE');
    t.integer('product_id').notNullable().references('products.id').onDelete('CASCADE');
    storeRef(t);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['customer_id', 'product_id']);
  });

  await knex.schema.createTable('reviews', (t) => {
    t.increments('id');
    storeRef(t);
    t.integer('product_id').references('products.id').onDelete('CASCADE'); // null: a store review
    t.integer('customer_id').references('customers.id').onDelete('SET NULL');
    t.integer('order_id').references('orders.id').onDelete('SET NULL');
    t.smallint('rating').notNullable();
    t.text('comment');
    t.boolean('published').notNullable().defaultTo(false);
    timestamps(t, knex);
    t.check('?? between 1 and 5', ['rating'], 'reviews_rating_check');
    t.index(['store_id', 'published', 'created_at']);
  });

  await knex.schema.createTable('analytics_events', (t) => {
    t.bigIncrements('id');
    storeRef(t);
    t.string('type', 20).notNullable();
    t.string('session_id', 64);
    t.string('visitor_id', 64);
    t.string('url', 2000);
    t.string('path', 500);
    t.string('event_name', 100);
    t.jsonb('properties');
    t.string('title', 500);
    t.string('referrer', 2000);
    t.integer('screen_width');
    t.string('destination', 2000);
    t.string('text', 200);
    t.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['store_id', 'occurred_at']);
  });

  // ---------------------------------------------------------------- operations
  await knex.schema.createTable('outbound_messages', (t) => {
    t.increments('id');
    t.integer('store_id').references('stores.id').onDelete('SET NULL');
    t.string('to', 20).notNullable().index(); // country code + number, digits only
    t.string('channel', 20).notNullable(); // whatsapp, sms
    t.string('driver', 20).notNullable(); // outbox, twilio
    t.text('body'); // kept by the outbox driver only (development); null for real deliveries
    t.string('purpose', 30).notNullable(); // otp, order_delivery, ...
    t.string('status', 20).notNullable(); // sent, failed
    t.string('provider_message_id', 100);
    t.string('error_code', 20);
    t.string('error_message', 500);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('idempotency_records', (t) => {
    t.increments('id');
    storeRef(t);
    t.string('scope', 50).notNullable();
    t.string('request_hash', 64).notNullable();
    t.string('resource_type', 20);
    t.integer('resource_id');
    t.jsonb('response');
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['store_id', 'scope', 'request_hash']);
  });
}

export async function down(knex: Knex): Promise<void> {
  const tables = [
    'idempotency_records',
    'outbound_messages',
    'analytics_events',
    'reviews',
    'wishlist_items',
    'fivem_commands',
    'subscriptions',
    'license_activations',
    'licenses',
    'coupon_uses',
    'product_codes',
    'order_items',
    'orders',
    'webhook_events',
    'payment_events',
    'payments',
    'checkout_uploads',
    'checkouts',
    'coupon_products',
    'coupons',
    'product_fivem_commands',
    'product_plans',
    'product_categories',
    'products',
    'categories',
    'otp_sessions',
    'customer_access_tokens',
    'customers',
    'blocked_phones',
    'fivem_servers',
    'merchant_tokens',
    'store_payment_methods',
    'store_domains',
    'stores',
    'platform_settings',
  ];
  for (const table of tables) await knex.schema.dropTableIfExists(table);
}
