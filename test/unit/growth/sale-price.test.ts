import { expect } from 'chai';
import Koa from 'koa';
import { nextBoundary, salePrice, type SaleTerms } from '../../../shared/services/pricing/sale-price';
import { commissionOf } from '../../../shared/services/growth/creator-ledger';
import { ReminderRefs } from '../../../shared/services/growth/reminder-refs';
import { REF_COOKIE, refFromRequest } from '../../../api/growth/ref';
import type { AppContext } from '../../../api/context';

const at = new Date('2026-11-27T12:00:00Z');
const sale = (over: Partial<SaleTerms>): SaleTerms => ({
  id: 1,
  percentBp: null,
  amountMinor: null,
  productIds: [10],
  categoryIds: [],
  startsAt: new Date('2026-11-27T00:00:00Z'),
  endsAt: new Date('2026-11-28T00:00:00Z'),
  stackable: false,
  ...over,
});

describe('growth: timed sale arithmetic', () => {
  it('rounds a percentage half up to the minor unit and caps a fixed amount at the price', () => {
    expect(salePrice(999, 10, [], [sale({ percentBp: 1250 })], at).priceMinor).to.equal(874); // 124.875 off → 125
    expect(salePrice(500, 10, [], [sale({ amountMinor: 900 })], at).priceMinor).to.equal(0);
  });

  it('takes the best non-stackable sale and adds the stackable ones', () => {
    const sales = [
      sale({ id: 1, percentBp: 1000 }),
      sale({ id: 2, amountMinor: 1500 }),
      sale({ id: 3, percentBp: 500, stackable: true }),
    ];
    expect(salePrice(10_000, 10, [], sales, at)).to.deep.equal({ priceMinor: 8000, saleIds: [2, 3] });
  });

  it('applies from the start (included) to the end (excluded), by product or category', () => {
    const s = sale({ percentBp: 5000, productIds: [], categoryIds: [7] });
    expect(salePrice(100, 10, [7], [s], s.startsAt).priceMinor).to.equal(50);
    expect(salePrice(100, 10, [7], [s], s.endsAt).priceMinor).to.equal(100);
    expect(salePrice(100, 10, [8], [s], at).priceMinor).to.equal(100);
  });

  it('names the next boundary after an instant', () => {
    const s = sale({ startsAt: new Date('2026-11-27T13:00:00Z') });
    expect(nextBoundary([s], at)?.toISOString()).to.equal('2026-11-27T13:00:00.000Z');
    expect(nextBoundary([s], new Date('2026-11-27T14:00:00Z'))?.toISOString()).to.equal(
      '2026-11-28T00:00:00.000Z',
    );
    expect(nextBoundary([s], new Date('2026-11-29T00:00:00Z'))).to.equal(null);
  });

  it('computes a commission half up', () => {
    expect(commissionOf(9500, 1000)).to.equal(950);
    expect(commissionOf(333, 1250)).to.equal(42); // 41.625
  });
});

describe('growth: reminder references', () => {
  it('verifies its own, refuses a forged or another secret’s, and reads the previous secret’s', () => {
    const refs = new ReminderRefs('secret-one-0123456789');
    const ref = refs.ref(42);
    expect(refs.parse(ref)).to.equal(42);
    expect(refs.parse(ref.replace(/.$/, (c) => (c === '0' ? '1' : '0')))).to.equal(null);
    expect(new ReminderRefs('secret-two-0123456789').parse(ref)).to.equal(null);
    expect(new ReminderRefs('secret-two-0123456789', ['secret-one-0123456789']).parse(ref)).to.equal(42);
  });
});

describe('growth: ?ref=CODE kept for the session', () => {
  const app = new Koa();
  const ctxOf = (url: string, cookie?: string): AppContext => {
    const req = {
      url,
      method: 'GET',
      socket: { encrypted: false },
      headers: { host: '127.0.0.1', ...(cookie ? { cookie } : {}) },
    };
    const res = { getHeader: () => undefined, setHeader: () => undefined, headers: {} };
    return app.createContext(req as never, res as never) as unknown as AppContext;
  };

  it('keeps a well-formed code in a first-party session cookie and reads it back', () => {
    const set: string[] = [];
    const ctx = ctxOf('/s/acme?ref=NOURA');
    ctx.cookies.set = ((name: string, value: string, opts: Record<string, unknown>) => {
      set.push(`${name}=${value};${JSON.stringify(opts)}`);
      return ctx.cookies;
    }) as never;
    expect(refFromRequest(ctx, '/s/acme')).to.equal('NOURA');
    expect(set[0])
      .to.include(`${REF_COOKIE}=NOURA`)
      .and.include('"sameSite":"lax"')
      .and.not.include('maxAge');
    expect(refFromRequest(ctxOf('/s/acme/p/x', `${REF_COOKIE}=NOURA`))).to.equal('NOURA');
    expect(refFromRequest(ctxOf('/s/acme?ref=<bad>'))).to.equal(undefined);
  });
});
