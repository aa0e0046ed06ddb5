/**
 * How a checkout's amounts are computed. Pure functions over integer minor units; no I/O.
 *
 * ## Pricing rules (README-ready)
 *
 * 1. **Unit price**: the plan's price when a plan is chosen (subscription variants, license plans);
 *    otherwise the product's sale price when one is set, else its list price.
 * 2. **Add-ons**: every chosen `select` option may carry a price; their sum is added to each unit.
 * 3. **Subtotal** = (unit price + add-ons) × quantity.
 * 4. **Discount** (a coupon) is taken from the subtotal:
 *    - percentage: subtotal × rate, the rate in basis points (1000 = 10%, never above 100%), rounded half
 *      up to a whole minor unit;
 *    - fixed: the coupon's amount, never more than the subtotal.
 * 5. **Tax**, from the store's setting, on the discounted amount (net = subtotal − discount):
 *    - `none`: no tax; total = net;
 *    - `exclusive`: prices exclude VAT; tax = net × rate (rounded half up) is added: total = net + tax;
 *    - `inclusive`: prices already contain VAT; the total is the net amount unchanged, and `tax_amount`
 *      shows the part of it that is tax: net × rate / (1 + rate), rounded half up.
 * 6. **Total** (`amount`) as above. Every amount is shown to clients as a decimal string with two places.
 *
 * Arithmetic runs on BigInt so a product of a large price and a rate is exact; results are checked to
 * fit a safe JavaScript integer.
 */

export type TaxMode = 'none' | 'inclusive' | 'exclusive';

export interface CouponTerms {
  type: 'percentage' | 'fixed';
  /** percentage: basis points (1000 = 10%); fixed: minor units. */
  amount: number;
}

export interface TaxSetting {
  mode: TaxMode;
  /** Basis points: 1500 = 15%. */
  rateBp: number;
}

export interface PriceInput {
  /** Price of one unit before add-ons, in minor units. */
  unitPriceMinor: number;
  /** Sum of the chosen options' prices, per unit, in minor units. */
  addonsMinor: number;
  quantity: number;
  coupon?: CouponTerms | null;
  tax: TaxSetting;
}

export interface PriceBreakdown {
  unitPriceMinor: number;
  addonsMinor: number;
  quantity: number;
  subtotalMinor: number;
  discountMinor: number;
  taxMinor: number;
  totalMinor: number;
}

const BP = 10_000n;

function toSafe(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < 0n) {
    throw new RangeError(`${what} is out of range: ${value}`);
  }
  return Number(value);
}

function assertAmount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${what} must be a non-negative integer`);
}

/** numerator / denominator rounded half up, for non-negative integers. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

/** The coupon's discount on `subtotalMinor`: never negative, never above the subtotal. */
export function couponDiscount(subtotalMinor: number, coupon: CouponTerms | null | undefined): number {
  assertAmount(subtotalMinor, 'subtotal');
  if (!coupon) return 0;
  assertAmount(coupon.amount, 'coupon amount');
  if (coupon.type === 'percentage') {
    const rate = BigInt(Math.min(coupon.amount, 10_000));
    return toSafe(divideHalfUp(BigInt(subtotalMinor) * rate, BP), 'discount');
  }
  return Math.min(coupon.amount, subtotalMinor);
}

/** Tax on the discounted amount `netMinor`, and the total the customer pays. */
export function applyTax(netMinor: number, tax: TaxSetting): { taxMinor: number; totalMinor: number } {
  assertAmount(netMinor, 'net amount');
  if (tax.mode === 'none' || tax.rateBp <= 0) return { taxMinor: 0, totalMinor: netMinor };
  assertAmount(tax.rateBp, 'tax rate');
  const net = BigInt(netMinor);
  const rate = BigInt(tax.rateBp);
  if (tax.mode === 'exclusive') {
    const taxMinor = toSafe(divideHalfUp(net * rate, BP), 'tax');
    return { taxMinor, totalMinor: toSafe(net + BigInt(taxMinor), 'total') };
  }
  // Inclusive: net = base × (1 + rate), so the tax inside it is net × rate / (1 + rate).
  return { taxMinor: toSafe(divideHalfUp(net * rate, BP + rate), 'tax'), totalMinor: netMinor };
}

/** Every amount of a checkout from its price, add-ons, quantity, coupon and the store's tax setting. */
export function priceCheckout(input: PriceInput): PriceBreakdown {
  assertAmount(input.unitPriceMinor, 'unit price');
  assertAmount(input.addonsMinor, 'add-ons');
  if (!Number.isSafeInteger(input.quantity) || input.quantity < 1) {
    throw new RangeError('quantity must be a positive integer');
  }
  const subtotalMinor = toSafe(
    (BigInt(input.unitPriceMinor) + BigInt(input.addonsMinor)) * BigInt(input.quantity),
    'subtotal',
  );
  const discountMinor = couponDiscount(subtotalMinor, input.coupon);
  const { taxMinor, totalMinor } = applyTax(subtotalMinor - discountMinor, input.tax);
  return {
    unitPriceMinor: input.unitPriceMinor,
    addonsMinor: input.addonsMinor,
    quantity: input.quantity,
    subtotalMinor,
    discountMinor,
    taxMinor,
    totalMinor,
  };
}

/** (unit + add-ons) × quantity, or null when it does not fit a safe integer (an absurd quantity). */
export function subtotalOf(unitPriceMinor: number, addonsMinor: number, quantity: number): number | null {
  const subtotal = (BigInt(unitPriceMinor) + BigInt(addonsMinor)) * BigInt(quantity);
  return subtotal <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(subtotal) : null;
}

/** What one unit costs before add-ons: the plan's price when a plan is chosen, else the sale price when set. */
export function unitPrice(
  product: { price_minor: number; sale_price_minor: number | null },
  plan?: { price_minor: number } | null,
): number {
  if (plan) return plan.price_minor;
  return product.sale_price_minor ?? product.price_minor;
}

/** One line of a checkout with several lines; `discountable` when the coupon applies to its product. */
export interface LineInput {
  unitPriceMinor: number;
  addonsMinor: number;
  quantity: number;
  discountable: boolean;
}

export interface LinesBreakdown {
  /** (unit + add-ons) × quantity of each line, in input order. */
  lineSubtotalsMinor: number[];
  subtotalMinor: number;
  /** The part of the subtotal the coupon applies to. */
  discountableMinor: number;
  discountMinor: number;
  taxMinor: number;
  totalMinor: number;
}

/**
 * Several lines under one coupon and one tax: rules 1 to 6 above, with the discount (rule 4) taken from
 * the subtotal of the lines the coupon applies to (a product-restricted coupon discounts only its
 * products) and tax on the whole discounted amount. One discountable line gives priceCheckout's amounts.
 */
export function priceLines(
  lines: readonly LineInput[],
  coupon: CouponTerms | null | undefined,
  tax: TaxSetting,
): LinesBreakdown {
  let subtotal = 0n;
  let discountable = 0n;
  const lineSubtotalsMinor: number[] = [];
  for (const line of lines) {
    assertAmount(line.unitPriceMinor, 'unit price');
    assertAmount(line.addonsMinor, 'add-ons');
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1) {
      throw new RangeError('quantity must be a positive integer');
    }
    const lineSubtotal = (BigInt(line.unitPriceMinor) + BigInt(line.addonsMinor)) * BigInt(line.quantity);
    lineSubtotalsMinor.push(toSafe(lineSubtotal, 'line subtotal'));
    subtotal += lineSubtotal;
    if (line.discountable) discountable += lineSubtotal;
  }
  const subtotalMinor = toSafe(subtotal, 'subtotal');
  const discountableMinor = toSafe(discountable, 'discountable subtotal');
  const discountMinor = couponDiscount(discountableMinor, coupon);
  const { taxMinor, totalMinor } = applyTax(subtotalMinor - discountMinor, tax);
  return { lineSubtotalsMinor, subtotalMinor, discountableMinor, discountMinor, taxMinor, totalMinor };
}
