import type { Knex } from 'knex';
import { activeMethods, type MethodOffer } from '../payment-methods';

/**
 * The launch checklist of the dashboard's home (docs/dashboard.md, "Launch checklist"): five steps to a
 * store's first sale, each ticked from the store's own data, never by hand:
 * - payment: a payment method is on (one this deployment offers: the sandbox only where it is on);
 * - product: a product is on sale;
 * - keys: a product on sale sells code keys, and every such product has keys left (a store without code
 *   products has nothing to stock: ticked once it has a product);
 * - share: a product has a paid order (its link or widget reached a buyer), or someone of the store copied
 *   a product's widget snippet in the dashboard (`stores.widget_snippet_copied_at`);
 * - test_purchase: the store has a paid order (In progress, Completed, or Refunded afterwards).
 */

export type LaunchStep = 'payment' | 'product' | 'keys' | 'share' | 'test_purchase';

export interface LaunchChecklist {
  steps: { step: LaunchStep; done: boolean; href: string }[];
  done: boolean;
  /** No payment method is on: flagged on every dashboard page. */
  noPaymentMethod: boolean;
  /** The first product on sale (where "share" and "keys" link to), if any. */
  firstProductId: number | null;
}

const PAID = [3, 4, 6];

/** Whether the store has any payment method on that this deployment offers (the flag of every page). */
export async function hasPaymentMethod(knex: Knex, storeId: number, offer: MethodOffer): Promise<boolean> {
  return (await activeMethods(knex, storeId, offer)).length > 0;
}

export async function launchChecklist(
  knex: Knex,
  storeId: number,
  offer: MethodOffer,
): Promise<LaunchChecklist> {
  const [payment, products, emptyCodeProducts, paid, store] = await Promise.all([
    hasPaymentMethod(knex, storeId, offer),
    knex('products')
      .where({ store_id: storeId, active: true })
      .orderBy('id')
      .select<{ id: number; type: string }[]>('id', 'type'),
    knex('products as p')
      .where({ 'p.store_id': storeId, 'p.active': true, 'p.type': 'code' })
      .whereNotExists(
        knex('product_codes as c')
          .select(knex.raw('1'))
          .whereRaw('c.product_id = p.id')
          .where('c.status', 'available'),
      )
      .orderBy('p.id')
      .select<{ id: number }[]>('p.id'),
    knex('orders').where('store_id', storeId).whereIn('status', PAID).first<{ id: number } | undefined>('id'),
    knex('stores')
      .where('id', storeId)
      .first<{ widget_snippet_copied_at: Date | null }>('widget_snippet_copied_at'),
  ]);
  const firstProductId = products[0]?.id ?? null;
  const codeProducts = products.filter((p) => p.type === 'code');
  const product = products.length > 0;
  const keys = product && emptyCodeProducts.length === 0;
  const share = Boolean(store?.widget_snippet_copied_at) || paid !== undefined;
  const firstCode = emptyCodeProducts[0]?.id ?? codeProducts[0]?.id ?? null;
  const steps: LaunchChecklist['steps'] = [
    { step: 'payment', done: payment, href: '/merchant/payments' },
    { step: 'product', done: product, href: product ? '/merchant/products' : '/merchant/products/new' },
    {
      step: 'keys',
      done: keys,
      href: firstCode !== null ? `/merchant/products/${firstCode}/keys` : '/merchant/products/new',
    },
    {
      step: 'share',
      done: share,
      href: firstProductId !== null ? `/merchant/products/${firstProductId}#share` : '/merchant/settings',
    },
    { step: 'test_purchase', done: paid !== undefined, href: '/merchant/settings' },
  ];
  return { steps, done: steps.every((s) => s.done), noPaymentMethod: !payment, firstProductId };
}

/** Notes that someone of the store copied a product's widget snippet (the checklist's "share" step). */
export async function noteSnippetCopied(knex: Knex, storeId: number, now: Date = new Date()): Promise<void> {
  await knex('stores')
    .where('id', storeId)
    .whereNull('widget_snippet_copied_at')
    .update({ widget_snippet_copied_at: now });
}
