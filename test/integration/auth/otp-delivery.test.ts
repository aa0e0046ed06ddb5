import { expect } from 'chai';
import { OtpSession, OutboundMessage, Product, Store } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import type { Deps } from '../../../shared/deps';
import { otpProcessor } from '../../../workers/processors/otp';
import { WorkerPool } from '../../../workers/worker-pool';
import { createCustomer, createProduct, createStore } from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { FakeTwilio } from '../../helpers/fake-twilio';
import { startServer, TestServer } from '../../helpers/http';
import { embedClient } from '../../helpers/otp';
import { waitFor } from '../queues/support';

const SMS_FROM = '+15005550006';
const WHATSAPP_FROM = '+14155238886';

let seq = 0;
/**
 * A phone of this file's own range (5968...), valid for Saudi mobiles (a 57 prefix followed by 4, 5 or 9 is
 * not, which made the start a 422 now and then): a counter beside the run's clock.
 */
const freshPhone = (): string =>
  `5968${String(Date.now() % 100).padStart(2, '0')}${String((seq += 1)).padStart(3, '0')}`;

/**
 * The whole OTP delivery path: the API answers, a real BullMQ worker runs the otp processor, and the real
 * twilio SDK talks to a local server shaped like Twilio's Messages API.
 */
describe('OTP delivery through the worker and Twilio', () => {
  let twilio: FakeTwilio;
  let deps: Deps;
  let server: TestServer;
  let pool: WorkerPool;
  let store: Store;
  let product: Product;

  before(async () => {
    twilio = await FakeTwilio.start();
    deps = await isolatedDeps({
      TRUST_PROXY: '1',
      MESSAGING_DRIVER: 'twilio',
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_SMS_FROM: SMS_FROM,
      TWILIO_WHATSAPP_FROM: WHATSAPP_FROM,
      TWILIO_API_BASE_URL: twilio.url,
    });
    server = await startServer(deps);
    pool = await WorkerPool.start(deps, { registry: { otp: otpProcessor } });
    store = await createStore();
    product = await createProduct(store);
  });
  after(async () => {
    await pool.close(1_000);
    await server.close();
    await twilio.close();
  });

  const jobState = (sessionId: number, version: number) => async () => {
    const job = await deps.queues.otp.getJob(`otp-${sessionId}-${version}`);
    const state = job ? await job.getState() : undefined;
    return state === 'completed' || state === 'failed' ? state : undefined;
  };

  async function startFor(phone: string): Promise<{ token: string; session: OtpSession }> {
    const res = await embedClient(server, store.embed_key).post('/api/embed/auth/start', {
      product_id: product.id,
      country_code: '966',
      phone,
    });
    expect(res.status).to.equal(200);
    const token = (res.body.data as { session_token: string }).session_token;
    const session = await OtpSession.query(deps.knex).findOne({ token_hash: sha256(token) });
    return { token, session: session! };
  }

  const codeIn = (body: string): string => body.match(/(?<!\d)\d{4}(?!\d)/g)!.join('');

  it('sends by WhatsApp; the code in the message verifies and is gone from the database once sent', async () => {
    const customer = await createCustomer(store, { phone: freshPhone() });
    const { token, session } = await startFor(customer.phone);
    expect(await waitFor('otp job', jobState(session.id, 1))).to.equal('completed');

    const sent = twilio.requestsTo(customer.e164);
    expect(sent.map((r) => [r.channel, r.status])).to.deep.equal([['whatsapp', 201]]);
    expect(sent[0].from).to.equal(`whatsapp:${WHATSAPP_FROM}`);
    const row = await OtpSession.query(deps.knex).findById(session.id);
    expect(row!.code_encrypted).to.equal(null);
    const stored = await OutboundMessage.query(deps.knex).where({ to: customer.e164 });
    expect(stored.map((m) => [m.driver, m.channel, m.status, m.body])).to.deep.equal([
      ['twilio', 'whatsapp', 'sent', null],
    ]);

    const verify = await embedClient(server, store.embed_key).post('/api/embed/auth/verify', {
      session_token: token,
      code: codeIn(sent[0].body),
    });
    expect(verify.status).to.equal(200);
    expect((verify.body.data as { status: string }).status).to.equal('authenticated');
  });

  it('falls back to SMS when the number cannot get WhatsApp, and resends by SMS only', async () => {
    const phone = freshPhone();
    twilio.failWhatsApp(`966${phone}`, 63003);
    const { token, session } = await startFor(phone);
    expect(await waitFor('otp job', jobState(session.id, 1))).to.equal('completed');
    const first = twilio.requestsTo(`966${phone}`);
    expect(first.map((r) => [r.channel, r.status])).to.deep.equal([
      ['whatsapp', 400],
      ['sms', 201],
    ]);
    expect(first[1].from).to.equal(SMS_FROM);

    await OtpSession.query(deps.knex)
      .patch({ last_sent_at: new Date(Date.now() - 60_000) })
      .where({ id: session.id });
    const resend = await embedClient(server, store.embed_key).post('/api/embed/auth/resend', {
      session_token: token,
    });
    expect(resend.status).to.equal(200);
    expect(await waitFor('resend job', jobState(session.id, 2))).to.equal('completed');
    const all = twilio.requestsTo(`966${phone}`);
    expect(all).to.have.length(3);
    expect(all[2].channel).to.equal('sms');
    expect(codeIn(all[2].body)).to.match(/^\d{4}$/);
  });

  it('fails the job permanently, where the dashboard shows it, when Twilio refuses the number', async () => {
    const phone = freshPhone();
    twilio.fail(`966${phone}`, { code: 21211 });
    const { session } = await startFor(phone);
    expect(await waitFor('otp job', jobState(session.id, 1))).to.equal('failed');
    const job = await deps.queues.otp.getJob(`otp-${session.id}-1`);
    expect(job!.attemptsMade).to.equal(1);
    expect(job!.failedReason).to.match(/21211/);
    expect(job!.failedReason).to.not.include('verification code');
  });
});
