import { expect } from 'chai';
import {
  currencyDigits,
  estimate,
  formatMoney,
  maxQuantity,
  offeredMethods,
  quantityOf,
  toMinor,
} from '../../../widget/src/pricing';

/** The widget's foreseen amounts (widget/src/pricing.ts), in minor units of the product's currency. */

const product = {
  price: { original: 60, actual: 55, formatted: '55.00 SAR', currency: 'SAR' },
  subscription_plans: [
    { id: 7, name: 'Monthly', price: '20.00', price_formatted: '20.00 SAR', duration: 'monthly' as const },
  ],
  fields: [
    {
      index: 0,
      type: 'select' as const,
      label: 'Package',
      label_ar: null,
      required: true,
      options: [
        { index: 0, label: 'Basic', label_ar: null, price: '0.00' },
        { index: 1, label: 'Pro', label_ar: null, price: '25.50' },
      ],
      upload: null,
    },
    {
      index: 1,
      type: 'text' as const,
      label: 'Site',
      label_ar: null,
      required: false,
      options: [],
      upload: null,
    },
  ],
};

const method = (id: 'card' | 'mada' | 'bank', min?: string, max?: string) => ({
  id,
  name_ar: id,
  name_en: id,
  icon: id,
  min_amount: min ?? null,
  max_amount: max ?? null,
});

describe('widget pricing', () => {
  it('knows the minor-unit digits of a currency, 2 when unknown', () => {
    expect(currencyDigits('SAR')).to.equal(2);
    expect(currencyDigits('KWD')).to.equal(3);
    expect(currencyDigits('JPY')).to.equal(0);
    expect(currencyDigits('not a currency')).to.equal(2);
    expect(toMinor('55.5')).to.equal(5550);
    expect(toMinor('5.125', 3)).to.equal(5125);
    expect(toMinor(0.1 + 0.2)).to.equal(30);
  });

  it('adds select options to the unit price and multiplies by the quantity', () => {
    const none = { planId: null, options: {}, quantity: 1, coupon: null };
    expect(estimate(product, none)).to.deep.equal({ subtotal: 5500, discount: 0, total: 5500 });
    expect(estimate(product, { ...none, options: { 0: 1 }, quantity: 3 })).to.deep.equal({
      subtotal: 3 * 8050,
      discount: 0,
      total: 3 * 8050,
    });
  });

  it('charges the chosen plan instead of the product price', () => {
    const e = estimate(product, { planId: 7, options: {}, quantity: 1, coupon: null });
    expect(e.total).to.equal(2000);
  });

  it('takes a percentage or a fixed coupon off, never below zero', () => {
    const base = { planId: null, options: {}, quantity: 2 };
    expect(estimate(product, { ...base, coupon: { type: 'percentage', amount: 10 } })).to.deep.equal({
      subtotal: 11000,
      discount: 1100,
      total: 9900,
    });
    expect(estimate(product, { ...base, coupon: { type: 'fixed', amount: 15 } }).total).to.equal(9500);
    expect(estimate(product, { ...base, coupon: { type: 'fixed', amount: 500 } })).to.deep.equal({
      subtotal: 11000,
      discount: 11000,
      total: 0,
    });
    expect(estimate(product, { ...base, coupon: { type: 'percentage', amount: 100 } }).total).to.equal(0);
  });

  it('counts three-decimal currencies in thousandths', () => {
    const kwd = { ...product, price: { ...product.price, actual: 1.125 }, fields: [] };
    const e = estimate(
      kwd,
      { planId: null, options: {}, quantity: 2, coupon: { type: 'fixed', amount: 0.5 } },
      3,
    );
    expect(e).to.deep.equal({ subtotal: 2250, discount: 500, total: 1750 });
    expect(formatMoney(1750, 'KWD', 'en', 3)).to.match(/1\.750/);
  });

  it('offers the methods the total and the coupon allow, none for a free order', () => {
    const methods = [method('card', '10.00'), method('mada'), method('bank', undefined, '50.00')];
    expect(offeredMethods(methods, 5500).map((m) => m.id)).to.deep.equal(['card', 'mada']);
    expect(offeredMethods(methods, 900).map((m) => m.id)).to.deep.equal(['mada', 'bank']);
    expect(offeredMethods(methods, 2000, ['card', 'bank']).map((m) => m.id)).to.deep.equal(['card', 'bank']);
    expect(offeredMethods(methods, 0)).to.deep.equal([]);
  });

  it('reads the quantity typed and caps it at the order limit and the stock', () => {
    expect(quantityOf('3')).to.equal(3);
    expect(quantityOf('')).to.equal(1);
    expect(quantityOf('0')).to.equal(1);
    expect(quantityOf('-2')).to.equal(1);
    expect(maxQuantity({ max_per_order: 5, stock: { is_in_stock: true, quantity: 3 } })).to.equal(3);
    expect(maxQuantity({ max_per_order: 5, stock: { is_in_stock: true, quantity: null } })).to.equal(5);
  });

  it('formats amounts in the buyer language, Arabic with Western digits unless the store chose Arabic-Indic', () => {
    expect(formatMoney(5550, 'SAR', 'en')).to.match(/SAR\s?55\.50/);
    expect(formatMoney(5550, 'SAR', 'ar'))
      .to.contain('55.50')
      .and.not.match(/[٠-٩]/);
    expect(formatMoney(5550, 'SAR', 'ar', 2, 'arabic_indic')).to.contain('٥٥٫٥٠');
    expect(formatMoney(5550, 'SAR', 'en', 2, 'arabic_indic')).to.match(/SAR\s?55\.50/);
  });
});
