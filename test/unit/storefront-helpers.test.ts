import { expect } from 'chai';
import fc from 'fast-check';
import { deviceClass, referrerHost, toRow, visitorHash } from '../../shared/services/analytics';
import { displayName } from '../../shared/services/reviews';
import { priceCheckout, priceLines, TaxSetting } from '../../shared/services/pricing';

const NO_TAX: TaxSetting = { mode: 'none', rateBp: 0 };

describe('pricing several lines', () => {
  it('gives priceCheckout’s amounts for one discountable line, whatever the numbers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.option(
          fc.oneof(
            fc.record({
              type: fc.constant('percentage' as const),
              amount: fc.integer({ min: 0, max: 10_000 }),
            }),
            fc.record({
              type: fc.constant('fixed' as const),
              amount: fc.integer({ min: 0, max: 10_000_000 }),
            }),
          ),
          { nil: null },
        ),
        fc.constantFrom<TaxSetting>(
          NO_TAX,
          { mode: 'exclusive', rateBp: 1_500 },
          { mode: 'inclusive', rateBp: 1_500 },
        ),
        (unit, addons, quantity, coupon, tax) => {
          const one = priceCheckout({ unitPriceMinor: unit, addonsMinor: addons, quantity, coupon, tax });
          const lines = priceLines(
            [{ unitPriceMinor: unit, addonsMinor: addons, quantity, discountable: true }],
            coupon,
            tax,
          );
          expect(lines).to.include({
            subtotalMinor: one.subtotalMinor,
            discountMinor: one.discountMinor,
            taxMinor: one.taxMinor,
            totalMinor: one.totalMinor,
          });
        },
      ),
    );
  });

  it('takes a coupon’s discount from the lines it applies to only', () => {
    const lines = [
      { unitPriceMinor: 5_000, addonsMinor: 0, quantity: 2, discountable: true },
      { unitPriceMinor: 3_000, addonsMinor: 500, quantity: 1, discountable: false },
    ];
    expect(priceLines(lines, { type: 'percentage', amount: 1_000 }, NO_TAX)).to.deep.equal({
      lineSubtotalsMinor: [10_000, 3_500],
      subtotalMinor: 13_500,
      discountableMinor: 10_000,
      discountMinor: 1_000,
      taxMinor: 0,
      totalMinor: 12_500,
    });
    // A fixed coupon is capped at the eligible lines, not the whole subtotal.
    expect(priceLines(lines, { type: 'fixed', amount: 50_000 }, NO_TAX).discountMinor).to.equal(10_000);
    expect(priceLines(lines, null, { mode: 'exclusive', rateBp: 1_500 })).to.include({
      taxMinor: 2_025,
      totalMinor: 15_525,
    });
  });
});

describe('analytics rows', () => {
  it('reads the device class from the user agent', () => {
    expect(deviceClass('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148')).to.equal(
      'mobile',
    );
    expect(deviceClass('Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36')).to.equal('mobile');
    expect(deviceClass('Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)')).to.equal('tablet');
    expect(deviceClass('Mozilla/5.0 (Linux; Android 13; SM-X200) Safari/537.36')).to.equal('tablet');
    expect(deviceClass('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Safari/605.1.15')).to.equal('desktop');
    expect(deviceClass('')).to.equal('desktop');
  });

  it('keeps the referrer’s host of an http(s) address only', () => {
    expect(referrerHost('https://WWW.Google.com/search?q=x')).to.equal('www.google.com');
    expect(referrerHost('android-app://com.example')).to.equal(null);
    expect(referrerHost('not a url')).to.equal(null);
    expect(referrerHost(undefined)).to.equal(null);
  });

  it('hashes visitors per salt, store, address and browser', () => {
    const client = { ip: '203.0.113.9', userAgent: 'UA' };
    const base = visitorHash('salt-1', 1, client);
    expect(base).to.match(/^[0-9a-f]{64}$/);
    expect(visitorHash('salt-1', 1, client)).to.equal(base);
    expect(visitorHash('salt-2', 1, client)).to.not.equal(base);
    expect(visitorHash('salt-1', 2, client)).to.not.equal(base);
    expect(visitorHash('salt-1', 1, { ...client, ip: '203.0.113.10' })).to.not.equal(base);
  });

  it('records the three types (event by default) and skips every other', () => {
    expect(toRow({}, 'h', 'desktop')?.type).to.equal('event');
    for (const type of ['pageview', 'event', 'outbound_click'])
      expect(toRow({ type }, 'h', 'mobile')?.type).to.equal(type);
    for (const type of ['web_vital', 'js_error', 'time_on_page', 'scroll_depth', 'other']) {
      expect(toRow({ type }, 'h', 'mobile')).to.equal(null);
    }
  });
});

describe('reviewer display name', () => {
  it('is the first name and the initial of the last', () => {
    expect(displayName('Sara', 'ali')).to.equal('Sara A.');
    expect(displayName('  Omar ', ' Khan')).to.equal('Omar K.');
    expect(displayName('Layla', '')).to.equal('Layla');
    expect(displayName(null, null)).to.equal('Anonymous');
    expect(displayName('نورة', 'العتيبي')).to.equal('نورة ا.');
  });
});
