import { expect } from 'chai';
import { moyasarDisputeOf } from '../../../shared/providers/moyasar';
import { matchEmailRule, matchIpRule } from '../../../shared/services/fraud/screen';
import { normaliseIpRule } from '../../../shared/services/fraud/settings';

describe('fraud controls: rule matching', () => {
  it('normalises IP rules and refuses what is none', () => {
    expect(normaliseIpRule(' 10.0.0.0/8 ')).to.equal('10.0.0.0/8');
    expect(normaliseIpRule('2001:DB8:0:0::1')).to.equal('2001:db8::1');
    expect(normaliseIpRule('2001:db8::/129')).to.equal(null);
    expect(normaliseIpRule('10.0.0.0/33')).to.equal(null);
    expect(normaliseIpRule('10.0.0.0/8/1')).to.equal(null);
    expect(normaliseIpRule('example.com')).to.equal(null);
  });

  it('matches addresses and ranges of the client’s family only', () => {
    const rules = ['192.0.2.0/24', '2001:db8::/32', '198.51.100.9'];
    expect(matchIpRule(rules, '192.0.2.77')).to.equal('192.0.2.0/24');
    expect(matchIpRule(rules, '::ffff:198.51.100.9')).to.equal('198.51.100.9');
    expect(matchIpRule(rules, '2001:db8:1::1')).to.equal('2001:db8::/32');
    expect(matchIpRule(rules, '192.0.3.1')).to.equal(null);
    expect(matchIpRule(rules, null)).to.equal(null);
    expect(matchIpRule(rules, 'garbage')).to.equal(null);
  });

  it('matches e-mail addresses exactly and @domains with their subdomains', () => {
    const rules = ['bad@i43.test', '@evil.i43.test'];
    expect(matchEmailRule(rules, 'BAD@i43.test')).to.deep.equal({
      rule: 'blocked_email',
      matched: 'bad@i43.test',
    });
    expect(matchEmailRule(rules, 'x@evil.i43.test')?.rule).to.equal('blocked_email_domain');
    expect(matchEmailRule(rules, 'x@a.evil.i43.test')?.rule).to.equal('blocked_email_domain');
    expect(matchEmailRule(rules, 'x@notevil.i43.test')).to.equal(null);
    expect(matchEmailRule(rules, 'good@i43.test')).to.equal(null);
  });

  it('reads a Moyasar dispute from its webhook envelope, and nothing from a payment event', () => {
    const dispute = moyasarDisputeOf({
      id: 'evt_1',
      type: 'payment_disputed',
      created_at: '2026-11-27T10:00:00Z',
      secret_token: 'x',
      data: {
        id: 'pay_1',
        status: 'paid',
        amount: 5000,
        currency: 'SAR',
        invoice_id: 'inv_1',
        dispute: { id: 'dsp_1', reason: 'fraud', evidence_due_by: '2026-12-04T10:00:00Z' },
      },
    });
    expect(dispute).to.deep.equal({
      providerPaymentId: 'inv_1',
      disputeId: 'dsp_1',
      reason: 'fraud',
      deadline: new Date('2026-12-04T10:00:00Z'),
      amountMinor: 5000,
    });
    expect(
      moyasarDisputeOf({ id: 'evt_2', type: 'payment_paid', data: { status: 'paid', invoice_id: 'inv_1' } }),
    ).to.equal(null);
  });
});
