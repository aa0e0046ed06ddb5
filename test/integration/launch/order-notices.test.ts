import { expect } from 'chai';
import type { Product, Store } from '../../../db/models';
import { createProduct, createStore } from '../../helpers/builders';
import { hostedMethod, usePaymentsSuite, waitFor } from '../payments/support';
import { buy } from '../account/support';
import { sendOrderNotice } from '../../../shared/services/notices/order-notice';

interface OutboxEntry {
  to: string;
  channel: string;
  body: string;
  subject?: string;
}

/**
 * New-order notices (docs/dashboard.md, "New-order notices"): each new paid order is told to the store's
 * owners by message and to the store's address by e-mail, once however often the job runs (also at the
 * same moment), and not at all when the store switched them off.
 */
describe('the merchant is told of each new paid order', function () {
  this.timeout(120_000);
  const suite = usePaymentsSuite();

  const outbox = async (to: string): Promise<OutboxEntry[]> => {
    const res = await suite.server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.messages as OutboxEntry[];
  };

  async function storeWithOwner(name: string, ownerPhone: string, email: string): Promise<[Store, Product]> {
    const store = await createStore({ name, support_email: email } as never);
    await hostedMethod(suite.deps, store, 'card', 'sandbox');
    const [user] = await suite.deps
      .knex('merchant_users')
      .insert({ name: 'Owner', country_code: '966', phone: ownerPhone, e164: `966${ownerPhone}` })
      .returning('id');
    await suite.deps
      .knex('store_members')
      .insert({ store_id: store.id, merchant_user_id: (user as { id: number }).id, role: 'owner' });
    const product = await createProduct(store, { name: 'Gift card', type: 'code', price_minor: 5_000 });
    await suite.deps.knex('product_codes').insert({ product_id: product.id, code: `NOTE-${store.id}-1` });
    return [store, product];
  }

  it('tells the owner by message and the store by e-mail, in the store’s language, once', async () => {
    const [store, product] = await storeWithOwner('Notice Store', '594700201', 'shop@f40.test');
    const order = await buy(suite.deps, suite.server, store, product, {
      phone: '594700202',
      email: 'buyer2@f40.test',
      first: 'Huda',
    });
    const message = await waitFor('the owner’s notice', async () =>
      (await outbox('966594700201')).find((m) => m.body.includes('طلب مدفوع جديد')),
    );
    expect(message.body).to.contain('Notice Store: طلب مدفوع جديد رقم 1 بقيمة 50.00 SAR من Huda');
    expect(message.body).to.contain(`/merchant/orders/${order.id}`);
    const mail = await waitFor('the notice e-mail', async () =>
      (await outbox('shop@f40.test')).find((m) => m.subject?.startsWith('طلب جديد رقم 1')),
    );
    expect(mail.body).to.contain('Gift card × 1');

    // The job again, five times at once (a retried job, a duplicate webhook): nothing more is sent.
    const again = await Promise.all(Array.from({ length: 5 }, () => sendOrderNotice(suite.deps, order.id)));
    expect(again).to.deep.equal(Array(5).fill('already-sent'));
    expect((await outbox('966594700201')).filter((m) => m.body.includes('طلب مدفوع جديد'))).to.have.length(1);
    expect((await outbox('shop@f40.test')).filter((m) => m.subject?.startsWith('طلب جديد'))).to.have.length(
      1,
    );
  });

  it('sends nothing when the store switched both notices off, and only the e-mail when messages are off', async () => {
    const [store, product] = await storeWithOwner('Quiet Store', '594700211', 'quiet@f40.test');
    await suite.deps
      .knex('stores')
      .where({ id: store.id })
      .update({ notify_order_message: false, notify_order_email: false });
    const order = await buy(suite.deps, suite.server, store, product, {
      phone: '594700212',
      email: 'buyer3@f40.test',
    });
    // The buyer's delivery went out, so the fulfilment (which asks for the notice) has run.
    await waitFor('the buyer’s delivery', async () =>
      (await outbox('966594700212')).find((m) => m.body.includes(`NOTE-${store.id}-1`)),
    );
    expect(await sendOrderNotice(suite.deps, order.id)).to.equal('off');
    expect(await outbox('966594700211')).to.have.length(0);
    expect(await outbox('quiet@f40.test')).to.have.length(0);

    await suite.deps.knex('stores').where({ id: store.id }).update({ notify_order_email: true });
    expect(await sendOrderNotice(suite.deps, order.id)).to.equal('sent');
    // The e-mail leaves through the `emails` queue: the outbox holds it once the worker has sent it.
    await waitFor(
      'the notice e-mail',
      async () => (await outbox('quiet@f40.test')).length === 1 || undefined,
    );
    expect(await outbox('quiet@f40.test')).to.have.length(1);
    expect(await outbox('966594700211')).to.have.length(0);
  });
});
