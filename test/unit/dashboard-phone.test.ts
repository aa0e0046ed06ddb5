import { expect } from 'chai';
import { parseInternational, stripCountryCode } from '../../shared/services/staff/sign-in';
import { can, permissionForStatus } from '../../shared/services/staff/roles';

describe('dashboard sign-in phone input', () => {
  it('reads a number written with its own country code, whatever country is selected', () => {
    expect(parseInternational('+971 50 123 4567')).to.deep.equal({
      countryCode: '971',
      national: '501234567',
      e164: '971501234567',
    });
    expect(parseInternational('00966500000001')?.e164).to.equal('966500000001');
    expect(parseInternational('500000001')).to.equal(null);
    expect(parseInternational('+999 1234567')).to.equal(null);
  });

  it('drops the selected country code typed in front of the national number, and only then', () => {
    expect(stripCountryCode('966', '966500000001')).to.equal('500000001');
    expect(stripCountryCode('966', '0500000001')).to.equal('0500000001');
    expect(stripCountryCode('966', '500000001')).to.equal('500000001');
  });
});

describe('dashboard roles', () => {
  it('lets support see orders and customers and move orders forward, never cancel, refund or change settings', () => {
    expect(can('support', 'orders.view')).to.equal(true);
    expect(can('support', 'customers.view')).to.equal(true);
    expect(can('support', permissionForStatus(4, 3))).to.equal(true);
    expect(can('support', permissionForStatus(5, 3))).to.equal(false);
    expect(can('support', permissionForStatus(6, 3))).to.equal(false);
    expect(can('support', 'settings.edit')).to.equal(false);
    expect(can('support', 'products.edit')).to.equal(false);
    expect(can('manager', 'settings.edit')).to.equal(true);
    expect(can('manager', 'staff.manage')).to.equal(false);
    expect(can('owner', 'staff.manage')).to.equal(true);
  });

  it('confirming a payment is support’s only when an owner granted it; owners and managers have it', () => {
    for (const from of [1, 2]) {
      for (const to of [3, 4]) {
        expect(permissionForStatus(to, from)).to.equal('orders.confirm_payment');
        expect(can('support', permissionForStatus(to, from))).to.equal(false);
        expect(can('support', permissionForStatus(to, from), ['orders.confirm_payment'])).to.equal(true);
        expect(can('manager', permissionForStatus(to, from))).to.equal(true);
        expect(can('owner', permissionForStatus(to, from))).to.equal(true);
      }
    }
    expect(permissionForStatus(2, 1)).to.equal('orders.advance');
    // A grant reaches no permission that is not grantable.
    expect(can('support', 'orders.refund', ['orders.refund'])).to.equal(false);
  });
});
