import type { Knex } from 'knex';
import { Checkout, CheckoutItem } from '../../../db/models';

/** One line of a checkout as the order, payment and page code read it. */
export interface CheckoutLine {
  product_id: number;
  plan_id: number | null;
  quantity: number;
  unit_price_minor: number;
  addons_minor: number;
  subtotal_minor: number;
  fields: Record<string, unknown>;
  /** Finite stock units this line took from products.stock (code keys are on product_codes). */
  reserved: boolean;
}

/**
 * The lines of a checkout: its checkout_items rows, or, for a checkout written before lines existed (or
 * directly by a test), the one line its own columns describe.
 */
export async function checkoutLines(
  knex: Knex | Knex.Transaction,
  checkout: Checkout,
): Promise<CheckoutLine[]> {
  const items = await CheckoutItem.query(knex).where('checkout_id', checkout.id).orderBy('position');
  if (items.length > 0) return items;
  return [
    {
      product_id: checkout.product_id,
      plan_id: checkout.plan_id,
      quantity: checkout.quantity,
      unit_price_minor: checkout.unit_price_minor,
      addons_minor: checkout.addons_minor,
      subtotal_minor: checkout.subtotal_minor,
      fields: checkout.fields,
      reserved: checkout.reserved,
    },
  ];
}

/**
 * What a checkout sells, for a payment description or page title: the product and quantity of a one-line
 * checkout; for several lines, every product with its quantity (`A × 2, B`) and a quantity of 1.
 */
export async function checkoutTitle(
  knex: Knex,
  checkout: Checkout,
): Promise<{ name: string; nameAr: string; quantity: number }> {
  const lines = await checkoutLines(knex, checkout);
  const rows = await knex('products')
    .whereIn(
      'id',
      lines.map((l) => l.product_id),
    )
    .select<{ id: number; name: string; name_ar: string | null }[]>('id', 'name', 'name_ar');
  const names = new Map(rows.map((p) => [p.id, p.name]));
  // The Arabic title for Arabic readers (docs/store-pages.md): each product's name_ar, else its name.
  const namesAr = new Map(rows.map((p) => [p.id, p.name_ar || p.name]));
  const title = (of: Map<number, string>): string => {
    if (lines.length === 1) return of.get(lines[0]!.product_id) ?? '';
    return lines
      .map((l) => {
        const name = of.get(l.product_id) ?? '';
        return l.quantity > 1 ? `${name} × ${l.quantity}` : name;
      })
      .join(', ');
  };
  return {
    name: title(names),
    nameAr: title(namesAr),
    quantity: lines.length === 1 ? lines[0]!.quantity : 1,
  };
}
