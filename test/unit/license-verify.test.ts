import { expect } from 'chai';
import { StampedCache } from '../../shared/services/licenses/cache';
import { identifierHash, identifierHint, normalizeIp } from '../../shared/services/licenses/identifiers';
import { dayMonthYear, durationLabel, localeFrom } from '../../shared/services/licenses/labels';
import { buildResult } from '../../shared/services/licenses/verify';

describe('license verify: labels, identifiers, result, cache', () => {
  it('picks the label language from Accept-Language by q-value, English by default', () => {
    expect(localeFrom(undefined)).to.equal('en');
    expect(localeFrom('')).to.equal('en');
    expect(localeFrom('ar')).to.equal('ar');
    expect(localeFrom('AR-sa')).to.equal('ar');
    expect(localeFrom('en;q=0.4, ar;q=0.8')).to.equal('ar');
    expect(localeFrom('ar;q=0, en')).to.equal('en');
    expect(localeFrom('fr, de;q=0.9')).to.equal('en');
    expect(localeFrom('*')).to.equal('en');
    expect(localeFrom('ar;q=abc'), 'a malformed q is ignored').to.equal('ar');
    expect(durationLabel('quarterly', 'ar')).to.equal('ربع سنوي');
    expect(durationLabel('lifetime', 'en')).to.equal('Lifetime');
  });

  it('writes dates day-month-year in UTC', () => {
    expect(dayMonthYear(new Date('2026-11-23T23:59:59Z'))).to.equal('23-11-2026');
    expect(dayMonthYear(new Date('2027-01-05T00:00:00Z'))).to.equal('05-01-2027');
  });

  it('hashes identifiers per lock type, one spelling per IP', () => {
    const a = identifierHash('secret', 'hwid', '10.0.0.1');
    expect(a).to.match(/^[0-9a-f]{64}$/);
    expect(identifierHash('secret', 'ip', '10.0.0.1')).to.not.equal(a);
    expect(identifierHash('other-secret', 'hwid', '10.0.0.1')).to.not.equal(a);
    expect(normalizeIp('::ffff:10.0.0.1')).to.equal('10.0.0.1');
    expect(normalizeIp('2001:DB8::1')).to.equal('2001:db8::1');
    expect(identifierHint('ip', '10.0.0.42')).to.equal('…42');
    expect(identifierHint('hwid', 'ABCDEF-1234')).to.equal('…1234');
  });

  it('counts expires_in_days up to the next whole day and reports nothing counted under lock none', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const base = {
      id: 1,
      key: 'K',
      productId: 2,
      productName: 'P',
      status: 'active' as const,
      lockType: 'none' as const,
      maxActivations: 3,
      activationsCount: 2,
      startsAt: null,
      createdAt: new Date('2026-11-01T00:00:00Z'),
      expiresAt: new Date('2026-11-23T13:00:00Z'),
      duration: null,
      metadata: null,
      features: { pro_export: true },
      notBefore: 0,
      graceDays: 0,
      checkinDays: 0,
      floating: false,
      heartbeatSeconds: 600,
    };
    const result = buildResult(base, 'en', now);
    expect(result.expires_in_days).to.equal(1);
    expect(result.plan).to.include({
      duration: 'custom',
      duration_label: 'Custom',
      start_date: '01-11-2026',
    });
    expect(result.activations).to.deep.equal({ current: 0, max: 3, remaining: 3 });
    expect(result.entitlements).to.deep.equal({ pro_export: true });
    expect(result.not_before).to.equal(0);
    const hwid = buildResult({ ...base, lockType: 'hwid', activationsCount: 5 }, 'ar', now);
    expect(hwid.activations).to.deep.equal({ current: 5, max: 3, remaining: 0 });
    expect(hwid.plan.duration_label).to.equal('مخصص');
  });

  it('serves a cached value only under the same stamp and within its lifetime, dropping the oldest when full', () => {
    const cache = new StampedCache<string>(1_000, 2);
    cache.set('a', '1.0', 'A', 0);
    expect(cache.get('a', '1.0', 500)).to.equal('A');
    expect(cache.get('a', '1.1', 500), 'a counter moved').to.equal(undefined);
    expect(cache.get('a', '1.0', 500), 'and the stale entry is gone').to.equal(undefined);
    cache.set('a', '1.0', 'A', 0);
    expect(cache.get('a', '1.0', 1_001), 'older than its lifetime').to.equal(undefined);
    cache.set('x', 's', 'X', 0);
    cache.set('y', 's', 'Y', 0);
    cache.set('z', 's', 'Z', 0);
    expect(cache.size).to.equal(2);
    expect(cache.get('x', 's', 1)).to.equal(undefined);
    expect(cache.get('z', 's', 1)).to.equal('Z');
  });
});
