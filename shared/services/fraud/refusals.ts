import type { Knex } from 'knex';

export interface RefusalView {
  id: number;
  rule: string;
  matched: string;
  source: string;
  customer_email: string | null;
  customer_phone: string | null;
  client_ip: string | null;
  created_at: string;
}

/** The store's latest refused checkouts, with the rule that matched (the merchant's list). */
export async function listRefusals(knex: Knex, storeId: number, limit = 100): Promise<RefusalView[]> {
  const rows = await knex('checkout_refusals')
    .where('store_id', storeId)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(limit);
  return rows.map((r: Record<string, unknown>) => ({
    id: Number(r.id),
    rule: String(r.rule),
    matched: String(r.matched),
    source: String(r.source),
    customer_email: (r.customer_email as string | null) ?? null,
    customer_phone: (r.customer_phone as string | null) ?? null,
    client_ip: (r.client_ip as string | null) ?? null,
    created_at: new Date(r.created_at as Date).toISOString(),
  }));
}
