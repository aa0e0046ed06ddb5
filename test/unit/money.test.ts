import { expect } from 'chai';
import { currencyExponent, SUPPORTED_CURRENCIES } from '../../shared/currency';
import {
  applyBasisPoints,
  formatDisplay,
  formatMoney,
  parseMoney,
  roundMinor,
  toMajorNumber,
} from '../../shared/money';

describe('money', () => {
  describe('parseMoney', () => {
    const valid: [string | number, number][] = [
      ['0', 0],
      ['0.00', 0],
      ['0.01', 1],
      ['0.1', 10],
      ['15.5', 1550],
      ['15.50', 1550],
      ['40', 4000],
      ['007.20', 720],
      [' 5.00 ', 500],
      ['999999999999.99', 99_999_999_999_999],
      [15.5, 1550],
      [3, 300],
    ];
    for (const [input, minor] of valid) {
      it(`reads ${JSON.stringify(input)} as ${minor} minor units`, () => {
        expect(parseMoney(input)).to.equal(minor);
      });
    }

    const invalid: (string | number)[] = [
      '',
      '12.345',
      '-1',
      '-0.50',
      '+5',
      '.5',
      '5.',
      '1e3',
      '1,000.00',
      '12.3.4',
      'abc',
      'NaN',
      '1000000000000',
      0.1 + 0.2,
      -2,
    ];
    for (const input of invalid) {
      it(`refuses ${JSON.stringify(input)}`, () => {
        expect(parseMoney(input)).to.equal(null);
      });
    }
  });

  describe('formatMoney', () => {
    it('writes two decimals for whole, small and negative amounts', () => {
      expect(formatMoney(0)).to.equal('0.00');
      expect(formatMoney(1)).to.equal('0.01');
      expect(formatMoney(10)).to.equal('0.10');
      expect(formatMoney(1550)).to.equal('15.50');
      expect(formatMoney(400_000)).to.equal('4000.00');
      expect(formatMoney(-250)).to.equal('-2.50');
      expect(formatMoney(-5)).to.equal('-0.05');
    });

    it('round-trips with parseMoney', () => {
      for (const minor of [0, 1, 99, 100, 1550, 123_456_789]) {
        expect(parseMoney(formatMoney(minor))).to.equal(minor);
      }
    });

    it('refuses amounts that are not whole minor units', () => {
      expect(() => formatMoney(1.5)).to.throw(RangeError, 'not an integer amount');
      expect(() => formatMoney(Number.NaN)).to.throw(RangeError);
      expect(() => formatMoney(2 ** 53)).to.throw(RangeError);
    });
  });

  describe('display helpers', () => {
    it('gives the numbers and strings the spec shows', () => {
      expect(toMajorNumber(1550)).to.equal(15.5);
      expect(toMajorNumber(4000)).to.equal(40);
      expect(toMajorNumber(1)).to.equal(0.01);
      expect(formatDisplay(1550, 'SAR')).to.equal('15.50 SAR');
    });
  });

  describe('currencies (ISO 4217 exponents, shared/currency.ts)', () => {
    it('knows the exponents: KWD, BHD, OMR, JOD 3; JPY 0; SAR, USD, EUR 2', () => {
      for (const code of ['KWD', 'BHD', 'OMR', 'JOD']) expect(currencyExponent(code), code).to.equal(3);
      expect(currencyExponent('JPY')).to.equal(0);
      for (const code of ['SAR', 'USD', 'EUR']) expect(currencyExponent(code), code).to.equal(2);
      expect(SUPPORTED_CURRENCIES).to.not.include('XYZ');
    });

    it('reads and writes each currency with its own decimals', () => {
      expect(parseMoney('12.345', 'KWD')).to.equal(12_345);
      expect(parseMoney('12.3', 'KWD')).to.equal(12_300);
      expect(parseMoney('12.3456', 'KWD')).to.equal(null);
      expect(parseMoney('500', 'JPY')).to.equal(500);
      expect(parseMoney('500.00', 'JPY'), 'trailing zeros are exact').to.equal(500);
      expect(parseMoney('500.5', 'JPY')).to.equal(null);
      expect(parseMoney('15.50', 'SAR')).to.equal(1550);
      expect(parseMoney('15.505', 'SAR')).to.equal(null);
      expect(formatMoney(12_345, 'KWD')).to.equal('12.345');
      expect(formatMoney(5, 'BHD')).to.equal('0.005');
      expect(formatMoney(-1_005, 'OMR')).to.equal('-1.005');
      expect(formatMoney(1_500, 'JPY')).to.equal('1500');
      expect(formatMoney(1_550, 'USD')).to.equal('15.50');
      expect(toMajorNumber(12_345, 'KWD')).to.equal(12.345);
      expect(toMajorNumber(1_500, 'JPY')).to.equal(1500);
      expect(formatDisplay(12_345, 'KWD')).to.equal('12.345 KWD');
      expect(formatDisplay(500, 'JPY')).to.equal('500 JPY');
    });

    it('round-trips every supported currency exactly', () => {
      for (const currency of SUPPORTED_CURRENCIES) {
        for (const minor of [0, 1, 9, 10, 999, 1_000, 123_456_789]) {
          expect(parseMoney(formatMoney(minor, currency), currency), `${currency} ${minor}`).to.equal(minor);
        }
      }
    });
  });

  describe('roundMinor', () => {
    it('rounds halves away from zero', () => {
      expect(roundMinor(2.5)).to.equal(3);
      expect(roundMinor(-2.5)).to.equal(-3);
      expect(roundMinor(2.4999)).to.equal(2);
      expect(roundMinor(-2.4999)).to.equal(-2);
      expect(roundMinor(0)).to.equal(0);
    });
  });

  describe('applyBasisPoints', () => {
    it('takes a share of an amount in integers, rounding half up', () => {
      expect(applyBasisPoints(10_000, 1000)).to.equal(1000); // 10% of 100.00
      expect(applyBasisPoints(999, 1000)).to.equal(100); // 99.9 -> 100
      expect(applyBasisPoints(994, 1000)).to.equal(99); // 99.4 -> 99
      expect(applyBasisPoints(5, 1000)).to.equal(1); // 0.5 -> 1
      expect(applyBasisPoints(4, 1000)).to.equal(0); // 0.4 -> 0
      expect(applyBasisPoints(1550, 1500)).to.equal(233); // 15% of 15.50 = 2.325
    });

    it('gives nothing for 0% and the whole amount for 100%', () => {
      expect(applyBasisPoints(12_345, 0)).to.equal(0);
      expect(applyBasisPoints(12_345, 10_000)).to.equal(12_345);
      expect(applyBasisPoints(0, 10_000)).to.equal(0);
    });

    it('stays exact for large amounts', () => {
      expect(applyBasisPoints(99_999_999_999, 3333)).to.equal(33_330_000_000);
    });
  });
});
