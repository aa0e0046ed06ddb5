import type { Knex } from 'knex';
import { randomToken, sha256 } from '../../crypto';
import { NotFoundError } from '../../errors';
import { formatMoney } from '../../money';
import { type Actor, recordAudit } from '../audit';
import { csvField } from '../invoices/report';
import { CREATOR_NOT_FOUND, creatorPageUrl, type CreatorRow, currencyOf } from './creators';

/** What creators and merchants read of the ledger: monthly figures, the creator's page, the payout CSV. */
export interface CreatorMonth {
  month: string;
  orders: number;
  revenue: string;
  commission: string;
}

/** A creator's ledger by calendar month (UTC), newest first: paid orders, revenue and commission. */
export async function creatorMonths(
  knex: Knex,
  creatorId: number,
  currency: string,
): Promise<CreatorMonth[]> {
  const rows: { month: string; orders: number; revenue: string; commission: string }[] = await knex(
    'creator_commissions',
  )
    .where('creator_id', creatorId)
    .groupByRaw("to_char(created_at at time zone 'UTC', 'YYYY-MM')")
    .orderBy('month', 'desc')
    .limit(120)
    .select(
      knex.raw("to_char(created_at at time zone 'UTC', 'YYYY-MM') as month"),
      knex.raw("count(*) filter (where kind = 'earned')::int as orders"),
      knex.raw('sum(revenue_minor)::bigint as revenue'),
      knex.raw('sum(commission_minor)::bigint as commission'),
    );
  return rows.map((r) => ({
    month: r.month,
    orders: Number(r.orders),
    revenue: formatMoney(Number(r.revenue), currency),
    commission: formatMoney(Number(r.commission), currency),
  }));
}

/** The creator whose private page this secret opens, with the store's name and currency; or null. */
export async function creatorBySecret(
  knex: Knex,
  secret: string,
): Promise<{ creator: CreatorRow; storeName: string; currency: string } | null> {
  if (typeof secret !== 'string' || secret.length < 16 || secret.length > 100) return null;
  const row = await knex('creators as c')
    .join('stores as s', 's.id', 'c.store_id')
    .where('c.page_token_hash', sha256(secret))
    .first<(CreatorRow & { store_name: string; currency: string }) | undefined>(
      'c.*',
      's.name as store_name',
      's.currency',
    );
  if (!row) return null;
  const { store_name, currency, ...creator } = row;
  return { creator, storeName: store_name, currency };
}

/** Issues a new private page address for the creator; the old one stops working at once. */
export async function rotateCreatorPage(
  knex: Knex,
  actor: Actor,
  storeId: number,
  id: number,
  publicBaseUrl: string,
): Promise<{ id: number; page_url: string }> {
  const secret = randomToken(24);
  await knex.transaction(async (trx) => {
    const n = await trx('creators')
      .where({ id, store_id: storeId })
      .update({ page_token_hash: sha256(secret), updated_at: new Date() });
    if (n === 0) throw new NotFoundError(CREATOR_NOT_FOUND);
    await recordAudit(trx, actor, 'creator.page_rotated', { type: 'creator', id });
  });
  return { id, page_url: creatorPageUrl(publicBaseUrl, secret) };
}

/**
 * The payout report: one line per creator and month (UTC) with orders, revenue and commission owed,
 * as CSV (UTF-8 with a byte order mark, CRLF; text cells guarded against spreadsheet formulas).
 */
export async function payoutCsv(knex: Knex, storeId: number, month?: string): Promise<string> {
  const currency = await currencyOf(knex, storeId);
  const q = knex('creator_commissions as cc')
    .join('creators as c', 'c.id', 'cc.creator_id')
    .where('cc.store_id', storeId)
    .groupBy('c.id', 'c.name', 'c.code', knex.raw("to_char(cc.created_at at time zone 'UTC', 'YYYY-MM')"))
    .orderBy([{ column: 'month', order: 'desc' }, { column: 'c.id' }])
    .select(
      'c.id',
      'c.name',
      'c.code',
      knex.raw("to_char(cc.created_at at time zone 'UTC', 'YYYY-MM') as month"),
      knex.raw("count(*) filter (where cc.kind = 'earned')::int as orders"),
      knex.raw('sum(cc.revenue_minor)::bigint as revenue'),
      knex.raw('sum(cc.commission_minor)::bigint as commission'),
    );
  if (month) q.havingRaw("to_char(cc.created_at at time zone 'UTC', 'YYYY-MM') = ?", [month]);
  const rows: {
    id: number;
    name: string;
    code: string;
    month: string;
    orders: number;
    revenue: string;
    commission: string;
  }[] = await q;
  const lines = ['creator_id,name,code,month,orders,revenue,commission,currency'];
  for (const r of rows) {
    lines.push(
      [
        csvField(r.id, 'number'),
        csvField(r.name),
        csvField(r.code),
        csvField(r.month),
        csvField(r.orders, 'number'),
        csvField(formatMoney(Number(r.revenue), currency), 'number'),
        csvField(formatMoney(Number(r.commission), currency), 'number'),
        csvField(currency),
      ].join(','),
    );
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
