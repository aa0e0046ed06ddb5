import type { Knex } from 'knex';
import { Customer, Product, Store } from '../../../db/models';
import { InvalidError, NotFoundError, ValidationError } from '../../errors';
import { productCards, ProductCard } from '../catalogue/storefront';

/**
 * A signed-in customer's wishlist in one store (spec: Wishlist, Wishlist errors). One entry per product:
 * the unique (customer_id, product_id) index decides between simultaneous adds, and every loser answers
 * 400 "Product already in wishlist". Only the store's active products are listed and counted, so a product
 * taken off sale disappears from the list and comes back with it.
 */

export const WISHLIST_MESSAGES = {
  added: 'Product added to wishlist',
  removed: 'Product removed from wishlist',
  cleared: 'Wishlist cleared',
  already: 'Product already in wishlist',
  notIn: 'Product not in wishlist',
  invalidProduct: 'The selected product id is invalid.',
} as const;

function listed(knex: Knex, store: Store, customer: Customer): Knex.QueryBuilder {
  return knex('wishlist_items as w')
    .join('products as p', 'p.id', 'w.product_id')
    .where('w.customer_id', customer.id)
    .andWhere('w.store_id', store.id)
    .andWhere('p.store_id', store.id)
    .andWhere('p.active', true);
}

export async function wishlistItems(
  knex: Knex,
  store: Store,
  customer: Customer,
): Promise<{ items: ProductCard[]; count: number }> {
  const ids = await listed(knex, store, customer)
    .orderBy([
      { column: 'w.created_at', order: 'desc' },
      { column: 'w.id', order: 'desc' },
    ])
    .pluck<number[]>('p.id');
  const products = ids.length === 0 ? [] : await Product.query(knex).whereIn('id', ids);
  const byId = new Map(products.map((p) => [p.id, p]));
  const items = await productCards(knex, store, ids.map((id) => byId.get(id)!).filter(Boolean));
  return { items, count: items.length };
}

export async function wishlistCount(knex: Knex, store: Store, customer: Customer): Promise<number> {
  const row = await listed(knex, store, customer).count<{ count: string }[]>({ count: '*' }).first();
  return Number(row?.count ?? 0);
}

export async function inWishlist(
  knex: Knex,
  store: Store,
  customer: Customer,
  productId: number,
): Promise<boolean> {
  const row = await listed(knex, store, customer).andWhere('p.id', productId).first('w.id');
  return row !== undefined;
}

/** 422 for a product that is not an active product of this store; 400 when it is already there. */
export async function addToWishlist(
  knex: Knex,
  store: Store,
  customer: Customer,
  productId: number,
): Promise<void> {
  const product = await Product.query(knex).findOne({ id: productId, store_id: store.id, active: true });
  if (!product) throw ValidationError.field('product_id', WISHLIST_MESSAGES.invalidProduct);
  const inserted = await knex('wishlist_items')
    .insert({ customer_id: customer.id, product_id: product.id, store_id: store.id })
    .onConflict(['customer_id', 'product_id'])
    .ignore()
    .returning('id');
  if (inserted.length === 0)
    throw new InvalidError(WISHLIST_MESSAGES.already).withCode('wishlist_already_added');
}

export async function removeFromWishlist(
  knex: Knex,
  store: Store,
  customer: Customer,
  productId: number,
): Promise<void> {
  const deleted = await knex('wishlist_items')
    .where({ customer_id: customer.id, store_id: store.id, product_id: productId })
    .delete();
  if (deleted === 0) throw new NotFoundError(WISHLIST_MESSAGES.notIn).withCode('wishlist_item_not_found');
}

export async function clearWishlist(knex: Knex, store: Store, customer: Customer): Promise<number> {
  return knex('wishlist_items').where({ customer_id: customer.id, store_id: store.id }).delete();
}
