import type { Knex } from 'knex';
import type { Store } from '../../../db/models';
import { formatMoney } from '../../money';

export interface StoreView {
  id: number;
  name: string;
  currency: string;
  plan: Store['plan'];
  domains: string[];
  payment_methods: { method: string; provider: string; active: boolean }[];
  tax: { mode: Store['tax_mode']; rate: string };
  created_at: string;
}

/** GET /shawarma/store: the store as its owner configured it. Credentials never leave the database. */
export async function storeInfo(knex: Knex, store: Store): Promise<StoreView> {
  const [domains, methods] = await Promise.all([
    knex('store_domains').where('store_id', store.id).orderBy('id').pluck<string[]>('domain'),
    knex('store_payment_methods')
      .where('store_id', store.id)
      .orderBy(['position', 'id'])
      .select<{ method: string; provider: string; active: boolean }[]>('method', 'provider', 'active'),
  ]);
  return {
    id: store.id,
    name: store.name,
    currency: store.currency,
    plan: store.plan,
    domains,
    payment_methods: methods.map((m) => ({ method: m.method, provider: m.provider, active: m.active })),
    // Basis points as a percentage string: 1500 -> "15.00".
    tax: { mode: store.tax_mode, rate: formatMoney(store.tax_rate_bp) },
    created_at: new Date(store.created_at).toISOString(),
  };
}
