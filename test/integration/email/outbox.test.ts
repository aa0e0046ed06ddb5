import crypto from 'node:crypto';
import { expect } from 'chai';
import { sendEmail } from '../../../shared/services/emails';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { paymentsSuite, type PaymentsSuite } from '../payments/support';
import { waitFor } from '../queues/support';
import { payThroughSandbox, seedStore, type SeededStore } from '../invoices/support';

interface OutboxMessage {
  to: string;
  channel: string;
  subject: string;
  body: string;
  attachments: string[];
  created_at: string;
}

/** The `outbox` e-mail driver (the default without SMTP_URL) and GET /__dev/outbox?to=ADDRESS (docs/email.md). */
describe('e-mail outbox driver', function () {
  this.timeout(60_000);
  let suite: PaymentsSuite;
  let emailWorkers: WorkerPool;
  let seeded: SeededStore;
  let orderId: number;

  before(async () => {
    suite = await paymentsSuite({ EMAIL_DRIVER: '', SMTP_URL: '' });
    expect(suite.deps.config.email.driver).to.equal('outbox');
    emailWorkers = await WorkerPool.start(suite.deps, { registry: processors, queues: ['emails'] });
    seeded = await seedStore(suite, { name: 'Acme Digital', vat_number: '310122393500003' });
    orderId = await payThroughSandbox(suite, seeded);
  });
  after(async () => {
    await emailWorkers?.close(1_000);
    await suite?.close();
  });

  const outbox = async (to: string): Promise<OutboxMessage[]> => {
    const res = await suite.server.request(`/__dev/outbox?to=${encodeURIComponent(to)}`);
    expect(res.status, res.text).to.equal(200);
    return (res.body as unknown as { messages: OutboxMessage[] }).messages;
  };

  it('shows what it sent to an address, newest first, with subject, text part and attachment names', async () => {
    const to = `buyer.${crypto.randomBytes(4).toString('hex')}@example.com`;
    await sendEmail(suite.deps, suite.deps.knex, {
      purpose: 'order_delivery',
      key: `order:${orderId}`,
      to,
      locale: 'en',
      template: 'delivery',
      storeId: seeded.store.id,
      orderId,
      data: { order_id: orderId, items: [{ name: 'E-book', codes: ['KEY-1111-2222'] }] },
      attachments: [{ kind: 'invoice_pdf', orderId }],
    });
    await waitFor('the delivery in the outbox', async () => (await outbox(to)).length === 1);
    await sendEmail(suite.deps, suite.deps.knex, {
      purpose: 'refund',
      key: `refund:${orderId}`,
      to: to.toUpperCase(),
      locale: 'ar',
      template: 'refund',
      storeId: seeded.store.id,
      orderId,
      data: { order_id: orderId, amount: '115.00', currency: 'SAR' },
    });
    const messages = await waitFor('both in the outbox', async () => {
      const list = await outbox(to);
      return list.length === 2 && list;
    });

    const [refund, delivery] = messages;
    expect(refund).to.include({ to, channel: 'email', subject: `استرداد مبلغ الطلب رقم ${orderId}` });
    expect(refund!.body).to.contain('115.00 SAR');
    expect(refund!.attachments).to.deep.equal([]);
    expect(delivery).to.include({
      to,
      channel: 'email',
      subject: `Your order #${orderId} from Acme Digital`,
    });
    expect(delivery!.body).to.contain('KEY-1111-2222');
    expect(delivery!.attachments).to.have.length(1);
    expect(delivery!.attachments[0]).to.match(/^invoice-\d+\.pdf$/);
    expect(Date.parse(refund!.created_at)).to.be.at.least(Date.parse(delivery!.created_at));
    // The address is matched without regard to case.
    expect(await outbox(to.toUpperCase())).to.have.length(2);
  });

  it('refuses a `to` that is neither digits nor an address, in the platform envelope', async () => {
    const res = await suite.server.request('/__dev/outbox?to=not-an-address');
    expect(res.status).to.equal(422);
    expect(res.text).to.contain('e-mail address');
  });

  it('sends nothing for a unit of work that rolls back, and after the commit for one that commits', async () => {
    const to = `uow.${crypto.randomBytes(4).toString('hex')}@example.com`;
    const request = {
      purpose: 'sign_in',
      key: `account:${to}`,
      to,
      locale: 'en' as const,
      template: 'sign_in' as const,
      storeId: seeded.store.id,
      data: { url: 'https://shop.example/account/sign-in/t', expires_minutes: 15 },
    };
    const refused = suite.deps.tx(async (uow) => {
      await sendEmail(suite.deps, uow, request);
      throw new Error('the change is refused');
    });
    await refused.then(
      () => expect.fail('the unit of work committed'),
      (err: Error) => expect(err.message).to.equal('the change is refused'),
    );
    expect(await suite.deps.knex('emails').where({ to })).to.have.length(0);
    const sent = await suite.deps.tx((uow) => sendEmail(suite.deps, uow, request));
    expect(sent.duplicate).to.equal(false);
    const [message] = await waitFor('the sign-in e-mail', async () => {
      const list = await outbox(to);
      return list.length === 1 && list;
    });
    expect(message).to.include({ subject: 'Sign in to Acme Digital' });
    expect(message!.body).to.contain('https://shop.example/account/sign-in/t');
  });

  it('refuses a request with a bad address, template or data before writing anything', async () => {
    const base = {
      purpose: 'refund',
      key: 'refund:bad',
      to: 'buyer@example.com',
      locale: 'en' as const,
      template: 'refund' as const,
      storeId: seeded.store.id,
      data: { order_id: orderId, amount: '1.00', currency: 'SAR' },
    };
    for (const bad of [
      { ...base, to: 'not an address' },
      { ...base, locale: 'fr' },
      { ...base, template: 'newsletter' },
      { ...base, data: { order_id: orderId, amount: 1, currency: 'SAR' } },
    ]) {
      await sendEmail(suite.deps, suite.deps.knex, bad as typeof base).then(
        () => expect.fail(`accepted ${JSON.stringify(bad)}`),
        (err: Error) => expect(err.name).to.equal('EmailRequestError'),
      );
    }
    expect(await suite.deps.knex('emails').where({ key: 'refund:bad' })).to.have.length(0);
  });
});
