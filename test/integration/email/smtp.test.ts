import crypto from 'node:crypto';
import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { sendEmail, type EmailRequest } from '../../../shared/services/emails';
import { documentLink } from '../../../shared/services/invoices/read';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { TestSmtpServer } from '../../helpers/smtp-server';
import { dashboardLogin } from '../dashboard/support';
import { paymentsSuite, type PaymentsSuite } from '../payments/support';
import { waitFor } from '../queues/support';
import { merchantGet, payThroughSandbox, seedStore, type SeededStore } from '../invoices/support';

/**
 * The e-mail channel over real SMTP (docs/email.md): a server of smtp-server on loopback receives what the
 * `emails` queue's real worker sends through nodemailer, and mailparser reads it back.
 */
describe('e-mail over SMTP', function () {
  this.timeout(60_000);
  const smtp = new TestSmtpServer();
  let suite: PaymentsSuite;
  let emailWorkers: WorkerPool;
  let seeded: SeededStore;
  let orderId: number;

  const address = (label: string): string => `${label}.${crypto.randomBytes(4).toString('hex')}@example.com`;
  const rowOf = (deps: Deps, to: string) => deps.knex('emails').where({ to }).first();

  before(async () => {
    await smtp.start();
    suite = await paymentsSuite({
      EMAIL_DRIVER: 'smtp',
      SMTP_URL: smtp.url,
      EMAIL_FROM: 'orders@matjar.example',
      EMAIL_RETRY_DELAY_MS: '20',
    });
    emailWorkers = await WorkerPool.start(suite.deps, { registry: processors, queues: ['emails'] });
    seeded = await seedStore(
      suite,
      { name: 'متجر أكمي', legal_name: 'شركة أكمي الرقمية', vat_number: '310122393500003' },
      { name: 'بطاقة شحن', price: '99.99' },
    );
    const patched = await suite.server.request('/shawarma/store', {
      method: 'PATCH',
      json: { support_email: 'Help@Acme.example' },
      headers: { Authorization: `Bearer ${seeded.token}` },
    });
    expect(patched.status, patched.text).to.equal(200);
    orderId = await payThroughSandbox(suite, seeded);
  });
  after(async () => {
    await emailWorkers?.close(1_000);
    await suite?.close();
    await smtp.close();
  });

  function delivery(to: string, key = `order:${orderId}`): EmailRequest<'delivery'> {
    return {
      purpose: 'order_delivery',
      key,
      to,
      locale: 'ar',
      template: 'delivery',
      storeId: seeded.store.id,
      orderId,
      data: {
        order_id: orderId,
        items: [
          {
            name: 'بطاقة شحن',
            codes: ['GIFT-7Q2K-99XZ'],
            license_keys: ['LIC-AAAA-BBBB-CCCC'],
            downloads: [{ name: 'guide.pdf', url: 'https://shop.example/d/abc' }],
          },
        ],
        document: { kind: 'invoice', url: 'https://shop.example/invoices/ref' },
      },
      attachments: [{ kind: 'invoice_pdf', orderId }],
    };
  }

  it('delivers an order in Arabic, right to left, from the store, with the invoice PDF attached', async () => {
    const to = address('sara');
    const link = await documentLink(
      suite.deps.knex,
      { ...suite.deps, publicBaseUrl: suite.deps.config.publicBaseUrl },
      orderId,
    );
    const request = delivery(to);
    request.data.document = { kind: 'invoice', url: link!.url };
    await sendEmail(suite.deps, suite.deps.knex, request);
    const [received] = await waitFor(
      'the delivery e-mail',
      async () => smtp.to(to).length > 0 && smtp.to(to),
    );
    const { mail } = received!;

    expect(mail.subject).to.equal(`طلبك رقم ${orderId} من متجر أكمي`);
    expect(mail.from?.value).to.deep.equal([{ name: 'متجر أكمي', address: 'orders@matjar.example' }]);
    expect(mail.replyTo?.value.map((v) => v.address)).to.deep.equal(['help@acme.example']);
    expect(mail.headers.get('content-language')).to.equal('ar');
    const html = String(mail.html);
    expect(html).to.match(/<html lang="ar" dir="rtl">/);
    expect(html).to.contain('dir="rtl"');
    expect(html).not.to.match(/<script|<link|@import|@font-face/i);
    expect(html).to.contain('GIFT-7Q2K-99XZ');
    expect(mail.text).to.contain('شكراً لشرائك');
    for (const part of ['GIFT-7Q2K-99XZ', 'LIC-AAAA-BBBB-CCCC', 'https://shop.example/d/abc', link!.url]) {
      expect(mail.text).to.contain(part);
    }

    // The attachment is the order's invoice, as GET on its PDF address renders it.
    const invoice = (await merchantGet(suite, seeded.token, `/shawarma/orders/${orderId}/invoice`)).body
      .data as {
      number: number;
    };
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).to.deep.equal([
      [`invoice-${invoice.number}.pdf`, 'application/pdf'],
    ]);
    const pdf = mail.attachments[0]!.content;
    expect(pdf.subarray(0, 5).toString()).to.equal('%PDF-');
    expect(pdf.subarray(-6).toString()).to.contain('%%EOF');

    const row = await rowOf(suite.deps, to);
    expect(row).to.include({ status: 'sent', attempts: 1, body: null });
    expect(row.attachments).to.deep.equal([`invoice-${invoice.number}.pdf`]);
    // The template's data (keys) is sealed at rest.
    expect(row.payload).to.match(/^v2\./).and.not.to.contain('GIFT-7Q2K-99XZ');
  });

  it('sends once however many times the same event asks, concurrently', async () => {
    const to = address('once');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => sendEmail(suite.deps, suite.deps.knex, delivery(to))),
    );
    expect(answers.filter((a) => !a.duplicate)).to.have.length(1);
    await waitFor('the e-mail sent', async () => (await rowOf(suite.deps, to))?.status === 'sent');
    await waitFor('the emails queue idle', async () => {
      const counts = await suite.deps.queues.emails.getJobCounts('waiting', 'active', 'delayed');
      return counts.waiting + counts.active + counts.delayed === 0;
    });
    // And again after it went out: still nothing new.
    expect((await sendEmail(suite.deps, suite.deps.knex, delivery(to))).duplicate).to.equal(true);
    expect(smtp.to(to)).to.have.length(1);
    const [rows] = await suite.deps.knex('emails').where({ to }).count<{ count: string }[]>('* as count');
    expect(Number(rows!.count)).to.equal(1);
  });

  it('retries a 4xx answer with back-off and delivers', async () => {
    const to = address('greylisted');
    smtp.answer(to, 451, 2);
    await sendEmail(suite.deps, suite.deps.knex, delivery(to));
    await waitFor('the e-mail sent', async () => (await rowOf(suite.deps, to))?.status === 'sent');
    expect(smtp.attempts.get(to)).to.equal(3);
    expect(smtp.to(to)).to.have.length(1);
    expect(await rowOf(suite.deps, to)).to.include({ status: 'sent', attempts: 3, error_code: null });
  });

  it('stops at a 5xx hard bounce and shows it on the order', async () => {
    const to = address('nobody');
    smtp.answer(to, 550);
    const { emailId } = await sendEmail(suite.deps, suite.deps.knex, delivery(to, `order:${orderId}:bounce`));
    await waitFor('the bounce', async () => (await rowOf(suite.deps, to))?.status === 'bounced');
    const state = await waitFor('the job failed', async () => {
      const s = await suite.deps.queues.emails.getJobState(`email-${emailId}`);
      return s === 'failed' && s;
    });
    expect(state).to.equal('failed');
    expect(smtp.attempts.get(to)).to.equal(1);
    expect(smtp.to(to)).to.have.length(0);
    const row = await rowOf(suite.deps, to);
    expect(row).to.include({ status: 'bounced', attempts: 1, error_code: '550' });
    // The merchant sees the bounce on the order.
    const order = await merchantGet(suite, seeded.token, `/shawarma/orders/${orderId}`);
    expect(order.status, order.text).to.equal(200);
    const shown = (
      order.body.data as { emails: { to: string; purpose: string; status: string; error: string }[] }
    ).emails.find((e) => e.to === to);
    expect(shown).to.include({ purpose: 'order_delivery', status: 'bounced' });
    expect(shown!.error).to.match(/^550 /);
    // And on the dashboard's order page, in the merchant's language.
    const owner = await dashboardLogin(suite.deps.knex, suite.deps.appSecret, seeded.store.id, 'owner');
    const page = await suite.server.request(`/merchant/orders/${orderId}?lang=ar`, {
      headers: { cookie: owner.cookie },
    });
    expect(page.status, page.text).to.equal(200);
    expect(page.text).to.contain('رسائل البريد إلى المشتري').and.contain('مرتدة: العنوان لا يستقبل البريد');
    expect(page.text).to.match(
      new RegExp(
        `data-email-status="bounced" data-email-purpose="[a-z_]+"><strong>[^<]+</strong> · <bdi>${to.replace(/\./g, '\\.')}</bdi>`,
      ),
    );
  });

  it('measures e-mails per second through the test server (printed, not asserted)', async () => {
    const count = 100;
    const tos = Array.from({ length: count }, (_, i) => address(`bench${i}`));
    const started = process.hrtime.bigint();
    await Promise.all(
      tos.map((to) =>
        sendEmail(suite.deps, suite.deps.knex, {
          purpose: 'sign_in',
          key: `bench:${to}`,
          to,
          locale: 'en',
          template: 'sign_in',
          storeId: seeded.store.id,
          data: { url: 'https://shop.example/account/sign-in/abc', expires_minutes: 15 },
        }),
      ),
    );
    await waitFor(
      'every bench e-mail sent',
      async () => {
        const [sent] = await suite.deps
          .knex('emails')
          .whereIn('to', tos)
          .where({ status: 'sent' })
          .count<{ count: string }[]>('* as count');
        return Number(sent!.count) === count;
      },
      30_000,
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(
      `      e-mails per second through the test SMTP server: ${(count / seconds).toFixed(0)} (${count} in ${seconds.toFixed(2)} s)`,
    );
    expect(tos.every((to) => smtp.to(to).length === 1)).to.equal(true);
  });
});
