import net from 'node:net';
import type { Knex } from 'knex';
import { ForbiddenError } from '../../errors';
import { FraudSettings, fraudSettingsOfRow, type FraudSettingsRow } from './settings';

/**
 * The checkout controls of docs/fraud.md, run by the one checkout service (shared/services/checkout,
 * openCheckout), so the Embed API, the Storefront, the widget, the store pages and the Merchant API's
 * `POST /shawarma/orders` are all held by them:
 *
 * 1. block lists (`screenBuyer`), before anything is written: the buyer's e-mail or its `@domain`, the
 *    client's address against addresses and CIDR ranges, the store's (and the platform's) blocked phones,
 *    and the store's allowed calling codes;
 * 2. limits (`enforceLimits`), inside the checkout's transaction, under a transaction-scoped advisory lock
 *    per store and buyer (phone, and e-mail): paid orders of the last 24 hours plus the buyer's live
 *    unpaid checkouts, so ten checkouts at once take their turns and at most the limit get through.
 *
 * A refusal is the same for every rule (403 `checkout_blocked`, no reason given: a fraudster learns
 * nothing from trying); the merchant sees the rule in the list of refusals (`checkout_refusals`).
 */

export const CHECKOUT_BLOCKED = 'This checkout cannot be completed.';

/** What matched, for the merchant's list; never shown to the buyer. */
export interface RefusalRule {
  rule:
    | 'blocked_email'
    | 'blocked_email_domain'
    | 'blocked_ip'
    | 'blocked_phone'
    | 'country_code'
    | 'max_orders_per_buyer_per_day'
    | 'max_units_per_product_per_day'
    | 'new_buyer_daily_limit';
  matched: string;
}

export class CheckoutBlockedError extends ForbiddenError {
  constructor(readonly refusal: RefusalRule) {
    super(CHECKOUT_BLOCKED);
    this.withCode('checkout_blocked');
  }
}

export interface ScreenedBuyer {
  email: string;
  countryCode: string;
  phone: string;
}

export interface ScreenContext {
  storeId: number;
  source: string;
  clientIp: string | null;
  buyer: ScreenedBuyer;
}

/** Checkouts no buyer opens (a subscription's renewal charges the saved card): not screened. */
export const isScreened = (source: string): boolean => source !== 'renewal';

/** `::ffff:1.2.3.4` is 1.2.3.4: a v4 client on a dual-stack socket. */
function clientAddress(ip: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const plain = ip.startsWith('::ffff:') && net.isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  const family = net.isIP(plain);
  if (family === 0) return null;
  return { address: plain, family: family === 4 ? 'ipv4' : 'ipv6' };
}

/** Adds one rule (an address or a CIDR range) to `list`; false when it is none. */
function addRule(list: net.BlockList, rule: string): boolean {
  const [address, bits] = rule.split('/');
  const family = net.isIP(address!);
  if (family === 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(address!, type);
  else list.addSubnet(address!, Number(bits), type);
  return true;
}

/**
 * The first rule of `rules` (addresses and CIDR ranges) that holds `ip`, or null. All rules are checked at
 * once (one BlockList); only a hit looks for which rule it was, for the merchant's list.
 */
export function matchIpRule(rules: readonly string[], ip: string | null): string | null {
  if (!ip || rules.length === 0) return null;
  const client = clientAddress(ip);
  if (!client) return null;
  const all = new net.BlockList();
  for (const rule of rules) addRule(all, rule);
  if (!all.check(client.address, client.family)) return null;
  for (const rule of rules) {
    const one = new net.BlockList();
    if (addRule(one, rule) && one.check(client.address, client.family)) return rule;
  }
  return null;
}

/** The e-mail rule (`buyer@x.test`, `@x.test`) that matches `email`, or null. Subdomains of `@x.test` too. */
export function matchEmailRule(rules: readonly string[], email: string): RefusalRule | null {
  const address = email.trim().toLowerCase();
  if (!address.includes('@')) return null;
  const domain = address.slice(address.lastIndexOf('@') + 1);
  for (const rule of rules) {
    if (rule.startsWith('@')) {
      const blocked = rule.slice(1);
      if (domain === blocked || domain.endsWith(`.${blocked}`)) {
        return { rule: 'blocked_email_domain', matched: rule };
      }
    } else if (rule === address) {
      return { rule: 'blocked_email', matched: rule };
    }
  }
  return null;
}

/**
 * The block lists, read before anything is written; throws CheckoutBlockedError (not yet recorded). One
 * statement: the store's fraud settings, its allowed calling codes and whether the buyer's phone is
 * blocked (a checkout's first round trip; docs/performance.md, "Checkout throughput").
 */
export async function screenBuyer(knex: Knex, ctx: ScreenContext): Promise<FraudSettings> {
  const e164 = ctx.buyer.countryCode + ctx.buyer.phone;
  const { rows } = await knex.raw<{
    rows: {
      settings: FraudSettingsRow | null;
      allowed_country_codes: string[] | null;
      blocked_phone: boolean;
    }[];
  }>(
    `select (select to_jsonb(f) from store_fraud_settings f where f.store_id = :store) as settings,
            (select s.allowed_country_codes from stores s where s.id = :store) as allowed_country_codes,
            exists (select 1 from blocked_phones b
                     where b.e164 = :e164 and (b.store_id = :store or b.store_id is null)) as blocked_phone`,
    { store: ctx.storeId, e164 },
  );
  const settings = fraudSettingsOfRow(rows[0]?.settings);
  const store = rows[0];
  const phone = rows[0]?.blocked_phone ? { e164 } : null;
  const email = matchEmailRule(settings.blocked_emails, ctx.buyer.email);
  if (email) throw new CheckoutBlockedError(email);
  const ip = matchIpRule(settings.blocked_ips, ctx.clientIp);
  if (ip) throw new CheckoutBlockedError({ rule: 'blocked_ip', matched: ip });
  if (phone) throw new CheckoutBlockedError({ rule: 'blocked_phone', matched: `+${phone.e164}` });
  const codes = store?.allowed_country_codes;
  if (codes && codes.length > 0 && !codes.includes(ctx.buyer.countryCode)) {
    throw new CheckoutBlockedError({ rule: 'country_code', matched: `+${ctx.buyer.countryCode}` });
  }
  return settings;
}

export interface LimitContext extends ScreenContext {
  lines: readonly { productId: number; quantity: number }[];
  totalMinor: number;
  currency: string;
}

const DAY_MS = 24 * 3600 * 1000;
/** Orders that count as placed: under review, in progress, completed. */
const PLACED = [2, 3, 4];

/**
 * The buyer's orders and live checkouts, matched by phone (with its calling code) or by e-mail; `alias`
 * names the table (`o` orders, `c` checkouts).
 */
function sameBuyer(q: Knex.QueryBuilder, alias: string, buyer: ScreenedBuyer): void {
  q.where((w) => {
    w.where({
      [`${alias}.customer_phone`]: buyer.phone,
      [`${alias}.customer_country_code`]: buyer.countryCode,
    });
    if (buyer.email.includes('@')) {
      w.orWhereRaw(`lower(${alias}.customer_email) = ?`, [buyer.email.trim().toLowerCase()]);
    }
  });
}

function liveCheckouts(trx: Knex, ctx: LimitContext, now: Date): Knex.QueryBuilder {
  return trx('checkouts as c')
    .where('c.store_id', ctx.storeId)
    .whereIn('c.status', ['created', 'payment_initiated'])
    .where('c.expires_at', '>', now)
    .modify((q) => sameBuyer(q, 'c', ctx.buyer));
}

function placedOrders(trx: Knex, ctx: LimitContext, since: Date): Knex.QueryBuilder {
  return trx('orders as o')
    .where('o.store_id', ctx.storeId)
    .whereIn('o.status', PLACED)
    .where('o.created_at', '>', since)
    .modify((q) => sameBuyer(q, 'o', ctx.buyer));
}

/**
 * Serialises the checkouts of one buyer in one store until the caller's transaction ends: one advisory lock
 * per identity (phone, e-mail), taken in a fixed order so two checkouts never wait on each other crosswise.
 */
export async function lockBuyer(trx: Knex.Transaction, storeId: number, buyer: ScreenedBuyer): Promise<void> {
  const keys = [`p:${buyer.countryCode}${buyer.phone}`];
  if (buyer.email.includes('@')) keys.push(`e:${buyer.email.trim().toLowerCase()}`);
  const hashes = await trx.raw<{ rows: { h: number }[] }>(
    `select distinct hashtext(k) as h from unnest(?::text[]) k order by h`,
    [keys.map((k) => `fraud:${storeId}:${k}`)],
  );
  for (const { h } of hashes.rows) {
    await trx.raw('select pg_advisory_xact_lock(?, ?)', [storeId, h]);
  }
}

/**
 * The limits, in the checkout's transaction before its row is written. A live unpaid checkout of the
 * buyer holds a place until it is paid or expires: that is what stops ten simultaneous checkouts from all
 * being paid under a limit of two (docs/fraud.md, "Limits").
 */
export async function enforceLimits(
  trx: Knex.Transaction,
  settings: FraudSettings,
  ctx: LimitContext,
  now: Date = new Date(),
): Promise<void> {
  const maxOrders = settings.max_orders_per_buyer_per_day;
  const maxUnits = settings.max_units_per_product_per_day;
  const newBuyerLimit = settings.new_buyer_daily_limit_minor;
  if (maxOrders === null && maxUnits === null && newBuyerLimit === null) return;
  await lockBuyer(trx, ctx.storeId, ctx.buyer);
  const since = new Date(now.getTime() - DAY_MS);

  if (maxOrders !== null) {
    const [orders, open] = await Promise.all([
      placedOrders(trx, ctx, since).count<{ n: string }[]>('* as n'),
      liveCheckouts(trx, ctx, now).count<{ n: string }[]>('* as n'),
    ]);
    if (Number(orders[0]!.n) + Number(open[0]!.n) + 1 > maxOrders) {
      throw new CheckoutBlockedError({ rule: 'max_orders_per_buyer_per_day', matched: String(maxOrders) });
    }
  }

  if (maxUnits !== null) {
    const wanted = new Map<number, number>();
    for (const l of ctx.lines) wanted.set(l.productId, (wanted.get(l.productId) ?? 0) + l.quantity);
    const ids = [...wanted.keys()];
    const [ordered, held] = await Promise.all([
      placedOrders(trx, ctx, since)
        .join('order_items as i', 'i.order_id', 'o.id')
        .whereIn('i.product_id', ids)
        .groupBy('i.product_id')
        .select<{ product_id: number; units: string }[]>('i.product_id', trx.raw('sum(i.quantity) as units')),
      liveCheckouts(trx, ctx, now)
        .join('checkout_items as i', 'i.checkout_id', 'c.id')
        .whereIn('i.product_id', ids)
        .groupBy('i.product_id')
        .select<{ product_id: number; units: string }[]>('i.product_id', trx.raw('sum(i.quantity) as units')),
    ]);
    for (const row of [...ordered, ...held]) {
      const id = Number(row.product_id);
      wanted.set(id, (wanted.get(id) ?? 0) + Number(row.units));
    }
    for (const [productId, units] of wanted) {
      if (units > maxUnits) {
        throw new CheckoutBlockedError({
          rule: 'max_units_per_product_per_day',
          matched: `${maxUnits} (product ${productId})`,
        });
      }
    }
  }

  if (newBuyerLimit !== null && ctx.totalMinor > 0) {
    const earlier = await trx('orders as o')
      .where('o.store_id', ctx.storeId)
      .whereIn('o.status', [3, 4])
      .where('o.created_at', '<=', since)
      .modify((q) => sameBuyer(q, 'o', ctx.buyer))
      .first('o.id');
    if (!earlier) {
      const [spent, open] = await Promise.all([
        placedOrders(trx, ctx, since).sum<{ s: string | null }[]>('o.total_minor as s'),
        liveCheckouts(trx, ctx, now).sum<{ s: string | null }[]>('c.total_minor as s'),
      ]);
      const total = Number(spent[0]?.s ?? 0) + Number(open[0]?.s ?? 0) + ctx.totalMinor;
      if (total > newBuyerLimit) {
        throw new CheckoutBlockedError({ rule: 'new_buyer_daily_limit', matched: String(newBuyerLimit) });
      }
    }
  }
}

/**
 * Keeps a refusal for the merchant's list (after the checkout's transaction rolled back, so it stays).
 * Never throws: a refusal is answered even when it cannot be written.
 */
export async function recordRefusal(
  knex: Knex,
  ctx: ScreenContext,
  refusal: RefusalRule,
  logger?: { warn(o: object, m: string): void },
): Promise<void> {
  try {
    await knex('checkout_refusals').insert({
      store_id: ctx.storeId,
      rule: refusal.rule,
      matched: refusal.matched.slice(0, 300),
      source: ctx.source.slice(0, 20),
      customer_email: ctx.buyer.email.slice(0, 254) || null,
      customer_phone: `${ctx.buyer.countryCode}${ctx.buyer.phone}`.slice(0, 30),
      client_ip: ctx.clientIp?.slice(0, 64) ?? null,
    });
  } catch (err) {
    logger?.warn({ storeId: ctx.storeId, error: (err as Error).message }, 'checkout refusal not recorded');
  }
}
