import type { Knex } from 'knex';
import { Product, Store } from '../../../db/models';
import { formatDisplay } from '../../money';
import { withTimedSales } from '../pricing/sales';

/** A store's active products as a sample merchant page lists them (the development demo of the widget). */
export interface Showcase {
  store: string;
  embedKey: string;
  products: { id: number; name: string; type: Product['type']; price: string; description: string | null }[];
}

export async function showcase(knex: Knex, embedKey: string): Promise<Showcase | null> {
  const store = await Store.query(knex).findOne({ embed_key: embedKey });
  if (!store) return null;
  const products = await Product.query(knex).where({ store_id: store.id, active: true }).orderBy('id');
  await withTimedSales(knex, store.id, products);
  return {
    store: store.name,
    embedKey,
    products: products.map((p) => ({
      id: p.id,
      name: p.name,
      type: p.type,
      price: formatDisplay(p.sale_price_minor ?? p.price_minor, store.currency),
      description: p.description,
    })),
  };
}
