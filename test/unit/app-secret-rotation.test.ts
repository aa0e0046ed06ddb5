import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../shared/config';
import { Cipher, SealError } from '../../shared/crypto';
import { InvoicePageRefs } from '../../shared/services/invoices/refs';
import { identifierHash, identifierHashes } from '../../shared/services/licenses/identifiers';
import { PaymentPageRefs } from '../../shared/services/payments/page-ref';
import { SubscriptionLinks } from '../../shared/services/subscriptions/links';

const A = 'unit-rotation-secret-A-'.padEnd(40, 'a');
const B = 'unit-rotation-secret-B-'.padEnd(40, 'b');

/** What APP_SECRET_PREVIOUS keeps readable (docs/security.md, "Rotating APP_SECRET"). */
describe('APP_SECRET_PREVIOUS', () => {
  it('is a comma list of earlier secrets of 32+ characters, and needs APP_SECRET', () => {
    expect(
      loadConfig({ APP_SECRET: B, APP_SECRET_PREVIOUS: ` ${A} , ${B}` }).appSecretPrevious,
    ).to.deep.equal([A]);
    expect(loadConfig({ APP_SECRET: B }).appSecretPrevious).to.deep.equal([]);
    for (const env of [{ APP_SECRET: B, APP_SECRET_PREVIOUS: `${A},short` }, { APP_SECRET_PREVIOUS: A }]) {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).variable).to.equal('APP_SECRET_PREVIOUS');
    }
  });

  it('sealed values name their key; those of a previous secret open, others fail naming APP_SECRET', () => {
    const underA = new Cipher(A).encrypt('card token');
    const withPrevious = new Cipher(B, [A]);
    expect(underA.startsWith(`v2.${new Cipher(A).keyId}.`)).to.equal(true);
    expect(withPrevious.decrypt(underA)).to.equal('card token');
    expect(withPrevious.isCurrent(underA)).to.equal(false);
    expect(withPrevious.isCurrent(withPrevious.encrypt('x'))).to.equal(true);
    expect(() => new Cipher(B).decrypt(underA))
      .to.throw(SealError)
      .with.property('message')
      .that.includes('APP_SECRET');
    // A value whose key id was altered does not open under another key.
    const forged = `v2.${withPrevious.keyId}.${underA.split('.')[2]}`;
    expect(() => withPrevious.decrypt(forged)).to.throw(SealError);
  });

  it('capability addresses built under a previous secret still open; new ones use APP_SECRET', () => {
    const invoice = new InvoicePageRefs(A).ref(42);
    expect(new InvoicePageRefs(B, [A]).parse(invoice)).to.equal(42);
    expect(new InvoicePageRefs(B).parse(invoice)).to.equal(null);
    expect(new InvoicePageRefs(B, [A]).ref(42)).to.equal(new InvoicePageRefs(B).ref(42));
    const payment = new PaymentPageRefs(A).ref(7);
    expect(new PaymentPageRefs(B, [A]).parse(payment)).to.equal(7);
    expect(new PaymentPageRefs(B).parse(payment)).to.equal(null);
    const subscription = new SubscriptionLinks(A).ref(9);
    expect(new SubscriptionLinks(B, [A]).parse(subscription)).to.equal(9);
    expect(new SubscriptionLinks(B).parse(subscription)).to.equal(null);
  });

  it('license activation identifiers are looked up under APP_SECRET first, then each previous secret', () => {
    expect(identifierHashes({ appSecret: B, appSecretPrevious: [A] }, 'hwid', 'machine-1')).to.deep.equal([
      identifierHash(B, 'hwid', 'machine-1'),
      identifierHash(A, 'hwid', 'machine-1'),
    ]);
  });
});
