import { expect } from 'chai';
import { dashboardForm, dashboardLogin } from '../dashboard/support';
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

  it('is set on the dashboard’s settings form, refused there in both languages when not an address', async () => {
    const { store, token } = await merchantStore();
    const owner = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, store.id, 'owner');
    const fields = { name: store.name, allowed_origins: '' };
    for (const [lang, message] of [
      ['en', 'Enter an e-mail address such as help@shop.example.com, or leave it empty.'],
      ['ar', 'أدخل بريداً إلكترونياً مثل help@shop.example.com أو اتركه فارغاً.'],
    ] as const) {
      const refused = await suite.server.request(
        `/merchant/settings?lang=${lang}`,
        dashboardForm(owner, { ...fields, support_email: 'help at shop' }),
      );
      expect(refused.status, refused.text).to.equal(422);
      expect(refused.text).to.contain(message).and.contain('value="help at shop"');
    }
    const saved = await suite.server.request('/merchant/settings?lang=en', {
      ...dashboardForm(owner, { ...fields, support_email: 'Care@Shop.Example' }),
      redirect: 'manual',
    });
    expect(saved.status, saved.text).to.equal(303);
    const api = await call(suite.server, token, 'GET', '/shawarma/store');
    expect((api.body.data as { support_email: unknown }).support_email).to.equal('care@shop.example');
    const page = await suite.server.request('/merchant/settings?lang=ar', {
      headers: { cookie: owner.cookie },
    });
    expect(page.text).to.contain('بريد الدعم').and.contain('value="care@shop.example"');

    // A form without the field leaves it; an empty field removes it.
    await suite.server.request('/merchant/settings?lang=en', {
      ...dashboardForm(owner, fields),
      redirect: 'manual',
    });
    const kept = await call(suite.server, token, 'GET', '/shawarma/store');
    expect((kept.body.data as { support_email: unknown }).support_email).to.equal('care@shop.example');
    await suite.server.request('/merchant/settings?lang=en', {
      ...dashboardForm(owner, { ...fields, support_email: '' }),
      redirect: 'manual',
    });
    const cleared = await call(suite.server, token, 'GET', '/shawarma/store');
    expect((cleared.body.data as { support_email: unknown }).support_email).to.equal(null);
  });
});
