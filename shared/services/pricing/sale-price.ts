/**
 * Timed sales' arithmetic (docs/growth.md, "Timed sales"). Pure functions over integer minor units; no I/O.
 *
 * - A sale applies to a product between `startsAt` (included) and `endsAt` (excluded) when it names the
 *   product or one of its categories.
 * - Its discount on a price: a percentage (basis points) rounded half up to the minor unit, or a fixed
 *   amount; never more than the price.
 * - Overlapping sales: the buyer gets the largest discount of the non-stackable ones; the stackable ones
 *   (`stackable`, the merchant's choice) are added to it, each computed on the same price. The price
 *   never goes below zero.
 * - The base is what the product costs without timed sales: its sale price when one is set, else its
 *   price. Subscription plans keep their own prices.
 */
export interface SaleTerms {
  id: number;
  percentBp: number | null;
  amountMinor: number | null;
  productIds: readonly number[];
  categoryIds: readonly number[];
  startsAt: Date;
  endsAt: Date;
  stackable: boolean;
}

/** numerator / denominator rounded half up, for non-negative integers. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

export function saleDiscount(baseMinor: number, sale: Pick<SaleTerms, 'percentBp' | 'amountMinor'>): number {
  if (sale.percentBp !== null) {
    const bp = BigInt(Math.min(Math.max(sale.percentBp, 0), 10_000));
    return Number(divideHalfUp(BigInt(baseMinor) * bp, 10_000n));
  }
  return Math.min(Math.max(sale.amountMinor ?? 0, 0), baseMinor);
}

export function saleApplies(
  sale: SaleTerms,
  productId: number,
  categoryIds: readonly number[],
  at: Date,
): boolean {
  const t = at.getTime();
  if (t < sale.startsAt.getTime() || t >= sale.endsAt.getTime()) return false;
  return sale.productIds.includes(productId) || sale.categoryIds.some((c) => categoryIds.includes(c));
}

/** The price after the sales running at `at`, and the ids of those that made it. */
export function salePrice(
  baseMinor: number,
  productId: number,
  categoryIds: readonly number[],
  sales: readonly SaleTerms[],
  at: Date,
): { priceMinor: number; saleIds: number[] } {
  let best: { id: number; discount: number } | null = null;
  let stacked = 0;
  const stackedIds: number[] = [];
  for (const sale of sales) {
    if (!saleApplies(sale, productId, categoryIds, at)) continue;
    const discount = saleDiscount(baseMinor, sale);
    if (sale.stackable) {
      stacked += discount;
      stackedIds.push(sale.id);
    } else if (best === null || discount > best.discount) {
      best = { id: sale.id, discount };
    }
  }
  const total = Math.min(baseMinor, (best?.discount ?? 0) + stacked);
  return { priceMinor: baseMinor - total, saleIds: [...(best ? [best.id] : []), ...stackedIds] };
}

/**
 * The next instant after `at` at which one of these sales starts or ends: what a cached price may not
 * outlive (docs/caching.md). Null when none is ahead.
 */
export function nextBoundary(sales: readonly SaleTerms[], at: Date): Date | null {
  let next: number | null = null;
  const t = at.getTime();
  for (const sale of sales) {
    for (const edge of [sale.startsAt.getTime(), sale.endsAt.getTime()]) {
      if (edge > t && (next === null || edge < next)) next = edge;
    }
  }
  return next === null ? null : new Date(next);
}
