import { expect } from 'chai';
import {
  applyTax,
  couponDiscount,
  priceCheckout,
  subtotalOf,
  TaxSetting,
  unitPrice,
} from '../../shared/services/pricing';

const NO_TAX: TaxSetting = { mode: 'none', rateBp: 0 };
const VAT15_EXCLUSIVE: TaxSetting = { mode: 'exclusive', rateBp: 1500 };
const VAT15_INCLUSIVE: TaxSetting = { mode: 'inclusive', rateBp: 1500 };

describe('pricing', () => {
  describe('unitPrice', () => {
    it('charges the sale price when one is set, else the list price', () => {
      expect(unitPrice({ price_minor: 5000, sale_price_minor: 4000 })).to.equal(4000);
      expect(unitPrice({ price_minor: 5000, sale_price_minor: null })).to.equal(5000);
      expect(unitPrice({ price_minor: 5000, sale_price_minor: 0 })).to.equal(0);
    });

    it('charges the plan price when a plan is chosen, whatever the product price', () => {
      expect(unitPrice({ price_minor: 5000, sale_price_minor: 4000 }, { price_minor: 1000 })).to.equal(1000);
    });
  });

  describe('subtotal', () => {
    it('adds the options to each unit before multiplying by the quantity', () => {
      const price = priceCheckout({ unitPriceMinor: 4000, addonsMinor: 1550, quantity: 3, tax: NO_TAX });
      expect(price.subtotalMinor).to.equal(16_650);
      expect(price.totalMinor).to.equal(16_650);
      expect(price.discountMinor).to.equal(0);
      expect(price.taxMinor).to.equal(0);
    });

    it('stays exact near the largest prices and says when a quantity cannot fit', () => {
      expect(subtotalOf(99_999_999_999_999, 0, 1)).to.equal(99_999_999_999_999);
      expect(subtotalOf(99_999_999_999_999, 1, 10_000)).to.equal(null);
      expect(subtotalOf(1, 2, 3)).to.equal(9);
    });

    it('refuses a quantity below 1 and amounts that are not whole minor units', () => {
      expect(() => priceCheckout({ unitPriceMinor: 100, addonsMinor: 0, quantity: 0, tax: NO_TAX })).to.throw(
        RangeError,
      );
      expect(() =>
        priceCheckout({ unitPriceMinor: 10.5, addonsMinor: 0, quantity: 1, tax: NO_TAX }),
      ).to.throw(RangeError);
    });
  });

  describe('couponDiscount', () => {
    const cases: [string, number, { type: 'percentage' | 'fixed'; amount: number }, number][] = [
      ['10% of 166.50', 16_650, { type: 'percentage', amount: 1000 }, 1665],
      ['12.5% of 9.99 (124.875 rounds up)', 999, { type: 'percentage', amount: 1250 }, 125],
      ['15% of 0.10 (1.5 rounds half up)', 10, { type: 'percentage', amount: 1500 }, 2],
      ['15% of 0.09 (1.35 rounds down)', 9, { type: 'percentage', amount: 1500 }, 1],
      ['33.33% of 1.00', 100, { type: 'percentage', amount: 3333 }, 33],
      ['100% of 40.00', 4000, { type: 'percentage', amount: 10_000 }, 4000],
      ['a percentage above 100% counts as 100%', 4000, { type: 'percentage', amount: 15_000 }, 4000],
      ['fixed 5.00 of 166.50', 16_650, { type: 'fixed', amount: 500 }, 500],
      ['fixed 200.00 is capped at the subtotal 166.50', 16_650, { type: 'fixed', amount: 20_000 }, 16_650],
      ['0% gives nothing', 16_650, { type: 'percentage', amount: 0 }, 0],
    ];
    for (const [name, subtotal, coupon, expected] of cases) {
      it(name, () => {
        expect(couponDiscount(subtotal, coupon)).to.equal(expected);
      });
    }

    it('gives nothing without a coupon', () => {
      expect(couponDiscount(16_650, null)).to.equal(0);
    });
  });

  describe('applyTax', () => {
    it('adds exclusive VAT on top, rounded half up in minor units', () => {
      expect(applyTax(9000, VAT15_EXCLUSIVE)).to.deep.equal({ taxMinor: 1350, totalMinor: 10_350 });
      expect(applyTax(1003, VAT15_EXCLUSIVE)).to.deep.equal({ taxMinor: 150, totalMinor: 1153 }); // 150.45
      expect(applyTax(1010, VAT15_EXCLUSIVE)).to.deep.equal({ taxMinor: 152, totalMinor: 1162 }); // 151.5
      expect(applyTax(0, VAT15_EXCLUSIVE)).to.deep.equal({ taxMinor: 0, totalMinor: 0 });
    });

    it('shows the VAT contained in inclusive prices without changing the total', () => {
      expect(applyTax(11_500, VAT15_INCLUSIVE)).to.deep.equal({ taxMinor: 1500, totalMinor: 11_500 });
      expect(applyTax(1000, VAT15_INCLUSIVE)).to.deep.equal({ taxMinor: 130, totalMinor: 1000 }); // 130.43
      expect(applyTax(3, { mode: 'inclusive', rateBp: 10_000 })).to.deep.equal({
        taxMinor: 2,
        totalMinor: 3,
      }); // 1.5
    });

    it('charges nothing when the store has no tax, whatever rate is stored', () => {
      expect(applyTax(9000, { mode: 'none', rateBp: 1500 })).to.deep.equal({ taxMinor: 0, totalMinor: 9000 });
    });

    it('stays exact for the largest amounts', () => {
      // 99,999,999,999,999 × 15% = 14,999,999,999,999.85 -> 15,000,000,000,000
      expect(applyTax(99_999_999_999_999, VAT15_EXCLUSIVE)).to.deep.equal({
        taxMinor: 15_000_000_000_000,
        totalMinor: 114_999_999_999_999,
      });
    });
  });

  describe('priceCheckout', () => {
    it('discounts the subtotal, then taxes what is left (exclusive)', () => {
      const price = priceCheckout({
        unitPriceMinor: 4000,
        addonsMinor: 1000,
        quantity: 2,
        coupon: { type: 'percentage', amount: 1000 },
        tax: VAT15_EXCLUSIVE,
      });
      expect(price).to.deep.equal({
        unitPriceMinor: 4000,
        addonsMinor: 1000,
        quantity: 2,
        subtotalMinor: 10_000,
        discountMinor: 1000,
        taxMinor: 1350,
        totalMinor: 10_350,
      });
    });

    it('takes the contained VAT from the discounted amount (inclusive)', () => {
      const price = priceCheckout({
        unitPriceMinor: 11_500,
        addonsMinor: 0,
        quantity: 1,
        coupon: { type: 'fixed', amount: 2300 },
        tax: VAT15_INCLUSIVE,
      });
      expect(price.discountMinor).to.equal(2300);
      expect(price.taxMinor).to.equal(1200); // 9200 × 15 / 115
      expect(price.totalMinor).to.equal(9200);
    });

    it('comes to zero with a full discount, tax included', () => {
      const price = priceCheckout({
        unitPriceMinor: 4000,
        addonsMinor: 1550,
        quantity: 3,
        coupon: { type: 'percentage', amount: 10_000 },
        tax: VAT15_EXCLUSIVE,
      });
      expect(price).to.include({ subtotalMinor: 16_650, discountMinor: 16_650, taxMinor: 0, totalMinor: 0 });
    });
  });
});
