import { expect } from 'chai';
import { couponSchema, MONEY_MESSAGE, productSchema } from '../../shared/services/catalogue/schema';
import { codesFromCsv } from '../../shared/services/catalogue/codes';
import { diff } from '../../shared/services/audit';

const check = (schema: ReturnType<typeof productSchema>, value: unknown) =>
  schema.validate(value, { abortEarly: false, errors: { label: false } });

describe('the one product and coupon schema (fixture and Merchant API)', () => {
  it('names categories by ref in a fixture and by id through the API', () => {
    const product = { name: 'P', slug: 'p', type: 'product', price: '1.00', categories: ['games'] };
    expect(check(productSchema('fixture'), { ...product, ref: 'p' }).error).to.equal(undefined);
    expect(check(productSchema('create'), product).error?.details.map((d) => d.path.join('.'))).to.deep.equal(
      ['categories.0'],
    );
    expect(check(productSchema('create'), { ...product, categories: [3] }).error).to.equal(undefined);
  });

  it('gives the same message for a bad price in every mode', () => {
    for (const mode of ['fixture', 'create', 'patch'] as const) {
      const { error } = check(productSchema(mode), {
        ref: 'p',
        name: 'P',
        slug: 'p',
        type: 'product',
        price: '1.2345',
      });
      expect(error?.details.find((d) => d.path[0] === 'price')?.message).to.equal(MONEY_MESSAGE);
    }
  });

  it('fills defaults on create and none on patch; refuses codes on patch', () => {
    const created = check(productSchema('create'), { name: 'P', slug: 'p', type: 'product', price: '1.00' });
    expect(created.value).to.deep.include({ active: true, categories: [], fields: [], plans: [], codes: [] });
    const patched = check(productSchema('patch'), { price: '2.00' });
    expect(patched.value).to.deep.equal({ price: '2.00' });
    expect(check(productSchema('patch'), { codes: ['A'] }).error?.details[0]?.path).to.deep.equal(['codes']);
  });

  it('checks a percentage coupon up to 100, a fixed one as money', () => {
    const pct = couponSchema('create').validate({ code: 'A', type: 'percentage', amount: '101' });
    expect(pct.error?.details[0]?.path).to.deep.equal(['amount']);
    expect(couponSchema('create').validate({ code: 'A', type: 'fixed', amount: '101.50' }).error).to.equal(
      undefined,
    );
  });
});

describe('codesFromCsv', () => {
  it('reads the first column, skips a header and blank lines, undoes quotes', () => {
    expect(codesFromCsv('code\nA-1\n"B,2",x\r\n\nC-3;note\n  D-4  \n"E""5"\n')).to.deep.equal([
      'A-1',
      'B,2',
      'C-3',
      'D-4',
      'E"5',
    ]);
    expect(codesFromCsv('KEY-1\nKEY-2')).to.deep.equal(['KEY-1', 'KEY-2']);
  });
});

describe('audit diff', () => {
  it('lists only the keys whose value changed, dates by instant', () => {
    const at = new Date('2030-01-01T00:00:00Z');
    expect(
      diff(
        { price: '1.00', name: 'A', expires_at: at, plans: [{ id: 1 }] },
        { price: '2.00', name: 'A', expires_at: new Date(at.getTime()), plans: [{ id: 1 }] },
      ),
    ).to.deep.equal({ price: { from: '1.00', to: '2.00' } });
  });
});
