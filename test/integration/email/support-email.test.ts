import { expect } from 'chai';
import { call, expectEnvelope, merchantStore, useMerchantSuite } from '../merchant/support';

/** The store's support address, the Reply-To of its e-mails (docs/email.md), through the Merchant API. */
describe('store support e-mail (Merchant API)', function () {
  this.timeout(20_000);
  const suite = useMerchantSuite();

  it('is set, shown, refused when not an address, and removed with null', async () => {
    const { token } = await merchantStore();
    const before = await call(suite.server, token, 'GET', '/shawarma/store');
    expectEnvelope(before, 200);
    expect((before.body.data as { support_email: unknown }).support_email).to.equal(null);

    const set = await call(suite.server, token, 'PATCH', '/shawarma/store', {
      support_email: ' Help@Shop.Example ',
    });
    expectEnvelope(set, 200);
    expect((set.body.data as { support_email: unknown }).support_email).to.equal('help@shop.example');

    for (const bad of ['not an address', 'a@', 'x'.repeat(250) + '@shop.example', 42]) {
      const refused = await call(suite.server, token, 'PATCH', '/shawarma/store', { support_email: bad });
      expectEnvelope(refused, 422);
      expect(refused.text).to.contain('support_email');
    }
    const shown = await call(suite.server, token, 'GET', '/shawarma/store');
    expect((shown.body.data as { support_email: unknown }).support_email).to.equal('help@shop.example');

    const cleared = await call(suite.server, token, 'PATCH', '/shawarma/store', { support_email: null });
    expectEnvelope(cleared, 200);
    expect((cleared.body.data as { support_email: unknown }).support_email).to.equal(null);
  });
});
