import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Deps } from '../../../shared/deps';
import {
  createMessenger,
  deliveryJobError,
  Messenger,
  OutgoingMessage,
  PermanentDeliveryError,
  RetryableDeliveryError,
} from '../../../shared/messaging';
import { TwilioMessenger } from '../../../shared/messaging/twilio';
import { bullPrefix } from '../../../shared/queues';
import { createRedis } from '../../../shared/redis';
import { FakeTwilio } from '../../helpers/fake-twilio';
import { isolatedDeps, testConfig } from '../../helpers/deps';
import { scratchQueue, waitFor } from '../queues/support';

const WHATSAPP_FROM = '+14155238886';
const SMS_FROM = '+15005550006';

let phoneSeq = 0;
/** A fresh recipient per test, so rows and scripted failures never mix. */
const nextPhone = (): string => `9665${String(10_000_000 + (phoneSeq += 1)).slice(-8)}`;

const otp = (to: string, route: OutgoingMessage['route'] = 'whatsapp_first'): OutgoingMessage => ({
  to,
  body: 'Your verification code is 4821',
  route,
  purpose: 'otp',
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('Expected the promise to reject');
}

describe('twilio messenger', () => {
  let deps: Deps;
  let fake: FakeTwilio;
  let messenger: Messenger;

  before(async () => {
    deps = await isolatedDeps();
    fake = await FakeTwilio.start();
    const config = testConfig({
      MESSAGING_DRIVER: 'twilio',
      TWILIO_ACCOUNT_SID: fake.accountSid,
      TWILIO_AUTH_TOKEN: fake.authToken,
      TWILIO_WHATSAPP_FROM: WHATSAPP_FROM,
      TWILIO_SMS_FROM: SMS_FROM,
      TWILIO_API_BASE_URL: fake.url,
    });
    messenger = createMessenger(config, deps.knex);
  });
  after(() => fake.close());

  const rowsTo = (to: string) =>
    deps
      .knex('outbound_messages')
      .where({ to })
      .orderBy('id')
      .select('channel', 'driver', 'body', 'purpose', 'status', 'provider_message_id', 'error_code');

  it('is the driver createMessenger builds for MESSAGING_DRIVER=twilio', () => {
    expect(messenger.driver).to.equal('twilio');
  });

  it('loads the Twilio SDK only when the first message is sent', () => {
    const script = [
      "const { createMessenger } = require('./shared/messaging');",
      "const config = { messagingDriver: 'twilio', twilio: { accountSid: 'AC' + '0'.repeat(32), authToken: 'x'.repeat(32) } };",
      'const messenger = createMessenger(config, {});',
      "const loaded = Object.keys(require.cache).some((file) => file.includes('/node_modules/twilio/'));",
      'process.stdout.write(JSON.stringify({ driver: messenger.driver, loaded }));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
      cwd: path.resolve(__dirname, '../../..'),
    });
    expect(JSON.parse(out.toString())).to.deep.equal({ driver: 'twilio', loaded: false });
  });

  it('sends by WhatsApp first and records the attempt without its body', async () => {
    const to = nextPhone();
    const result = await messenger.send({ ...otp(to), storeId: null });

    expect(result.channel).to.equal('whatsapp');
    expect(result.providerMessageId).to.match(/^SM[0-9a-f]{32}$/);
    const [request, ...others] = fake.requestsTo(to);
    expect(others).to.have.length(0);
    expect(request).to.include({
      method: 'POST',
      path: `/2010-04-01/Accounts/${fake.accountSid}/Messages.json`,
      authorized: true,
      channel: 'whatsapp',
      from: `whatsapp:${WHATSAPP_FROM}`,
      body: 'Your verification code is 4821',
      status: 201,
    });
    expect(await rowsTo(to)).to.deep.equal([
      {
        channel: 'whatsapp',
        driver: 'twilio',
        body: null,
        purpose: 'otp',
        status: 'sent',
        provider_message_id: result.providerMessageId,
        error_code: null,
      },
    ]);
  });

  for (const code of [63003, 63024]) {
    it(`falls back to SMS when WhatsApp answers ${code} (the number cannot get WhatsApp)`, async () => {
      const to = nextPhone();
      fake.failWhatsApp(to, code);
      const result = await messenger.send(otp(to));

      expect(result.channel).to.equal('sms');
      expect(fake.requestsTo(to).map((r) => [r.channel, r.from, r.status])).to.deep.equal([
        ['whatsapp', `whatsapp:${WHATSAPP_FROM}`, 400],
        ['sms', SMS_FROM, 201],
      ]);
      const rows = await rowsTo(to);
      expect(rows.map((r) => [r.channel, r.status, r.error_code, r.body])).to.deep.equal([
        ['whatsapp', 'failed', String(code), null],
        ['sms', 'sent', null, null],
      ]);
      expect(rows[1].provider_message_id).to.equal(result.providerMessageId);
    });
  }

  it('sends SMS only when asked to, without trying WhatsApp', async () => {
    const to = nextPhone();
    const result = await messenger.send(otp(to, 'sms_only'));
    expect(result.channel).to.equal('sms');
    expect(fake.requestsTo(to).map((r) => r.channel)).to.deep.equal(['sms']);
  });

  for (const [code, channel] of [
    [63018, 'whatsapp'],
    [20429, 'whatsapp'],
  ] as const) {
    it(`treats ${code} as a rate limit: a retryable error, and no SMS fallback`, async () => {
      const to = nextPhone();
      fake.rateLimit(to, { code, channel });
      const err = await rejection(messenger.send(otp(to)));

      expect(err).to.be.instanceOf(RetryableDeliveryError);
      expect(err).to.include({ providerCode: String(code), rateLimited: true, channel: 'whatsapp' });
      expect(fake.requestsTo(to).map((r) => [r.channel, r.status])).to.deep.equal([['whatsapp', 429]]);
      expect((await rowsTo(to)).map((r) => [r.status, r.error_code])).to.deep.equal([
        ['failed', String(code)],
      ]);
      // Not unrecoverable: BullMQ retries it with back-off.
      expect(deliveryJobError(err)).to.equal(err);
    });
  }

  it('treats a Twilio server error as retryable', async () => {
    const to = nextPhone();
    fake.fail(to, { code: 20500, channel: 'sms', message: 'Internal Server Error' });
    const err = await rejection(messenger.send(otp(to, 'sms_only')));
    expect(err).to.be.instanceOf(RetryableDeliveryError).with.property('rateLimited', false);
  });

  for (const [code, label] of [
    [21211, 'an invalid number'],
    [21610, 'an unsubscribed recipient'],
    [21608, 'an unverified number'],
  ] as const) {
    it(`fails permanently on ${label} (${code}), which the job turns into an UnrecoverableError`, async () => {
      const to = nextPhone();
      fake.fail(to, { code });
      const err = await rejection(messenger.send(otp(to)));

      expect(err).to.be.instanceOf(PermanentDeliveryError).with.property('providerCode', String(code));
      expect(fake.requestsTo(to)).to.have.length(1);
      const jobError = deliveryJobError(err);
      expect(jobError).to.be.instanceOf(UnrecoverableError);
      expect(jobError.message).to.include(`provider code ${code}`);
    });
  }

  it('fails permanently when Twilio refuses the credentials (20003)', async () => {
    const wrong = new TwilioMessenger(deps.knex, {
      accountSid: fake.accountSid,
      authToken: 'not-the-token',
      whatsappFrom: WHATSAPP_FROM,
      smsFrom: SMS_FROM,
      apiBaseUrl: fake.url,
    });
    const to = nextPhone();
    const err = await rejection(wrong.send(otp(to)));

    expect(err).to.be.instanceOf(PermanentDeliveryError).with.property('providerCode', '20003');
    expect(fake.requestsTo(to).map((r) => [r.authorized, r.status])).to.deep.equal([[false, 401]]);
  });

  it('fails permanently when the number cannot get WhatsApp and no SMS sender is configured', async () => {
    const whatsappOnly = new TwilioMessenger(deps.knex, {
      accountSid: fake.accountSid,
      authToken: fake.authToken,
      whatsappFrom: WHATSAPP_FROM,
      apiBaseUrl: fake.url,
    });
    const to = nextPhone();
    fake.failWhatsApp(to, 63003);
    const err = await rejection(whatsappOnly.send(otp(to)));
    expect(err).to.be.instanceOf(PermanentDeliveryError).with.property('providerCode', '63003');
  });

  it('refuses a recipient that is not a phone number without calling Twilio', async () => {
    const before = fake.requests.length;
    const err = await rejection(messenger.send(otp('12ab')));
    expect(err).to.be.instanceOf(PermanentDeliveryError);
    expect(fake.requests.length).to.equal(before);
  });

  it('treats an unreachable Twilio as retryable', async () => {
    const down = await FakeTwilio.start({ accountSid: fake.accountSid, authToken: fake.authToken });
    const unreachable = new TwilioMessenger(deps.knex, {
      accountSid: fake.accountSid,
      authToken: fake.authToken,
      smsFrom: SMS_FROM,
      apiBaseUrl: down.url,
    });
    await down.close();
    const err = await rejection(unreachable.send(otp(nextPhone(), 'sms_only')));
    expect(err).to.be.instanceOf(RetryableDeliveryError).with.property('providerCode', null);
  });

  describe('inside a BullMQ job', () => {
    let queue: Queue;
    let worker: Worker;

    before(async () => {
      queue = scratchQueue(deps, 'delivery-test');
      const connection = createRedis(deps.config.redisUrl, 'worker');
      worker = new Worker<{ to: string }>(
        'delivery-test',
        async (job) => {
          try {
            return await messenger.send(otp(job.data.to));
          } catch (err) {
            throw deliveryJobError(err);
          }
        },
        { connection, prefix: bullPrefix(deps.config.queuePrefix) },
      );
      worker.on('closed', () => connection.disconnect());
      await worker.waitUntilReady();
    });
    after(async () => {
      await worker.close();
      await queue.close();
    });

    const options = { attempts: 4, backoff: { type: 'exponential', delay: 100 } };

    it('fails a permanently undeliverable message at once, leaving it in the failed set', async () => {
      const to = nextPhone();
      fake.fail(to, { code: 21211 });
      await queue.add('send', { to }, { ...options, jobId: `permanent-${to}` });

      const job = await waitFor('the job to fail', async () => {
        const found = await queue.getJob(`permanent-${to}`);
        return (await found?.getState()) === 'failed' ? found : undefined;
      });
      expect(job.attemptsMade).to.equal(1);
      expect(job.failedReason).to.include('provider code 21211');
      expect((await queue.getFailed()).map((j) => j.id)).to.include(`permanent-${to}`);
      expect(fake.requestsTo(to)).to.have.length(1);
    });

    it('retries a rate-limited message with back-off until Twilio accepts it', async () => {
      const to = nextPhone();
      fake.rateLimit(to, { code: 63018, channel: 'whatsapp', times: 2 });
      await queue.add('send', { to }, { ...options, jobId: `throttled-${to}` });

      const job = await waitFor('the job to complete', async () => {
        const found = await queue.getJob(`throttled-${to}`);
        return (await found?.getState()) === 'completed' ? found : undefined;
      });
      expect(job.returnvalue).to.include({ channel: 'whatsapp' });
      const requests = fake.requestsTo(to);
      expect(requests.map((r) => [r.channel, r.status])).to.deep.equal([
        ['whatsapp', 429],
        ['whatsapp', 429],
        ['whatsapp', 201],
      ]);
      // Exponential back-off from the job options: ~100 ms, then ~200 ms.
      expect(requests[1].receivedAt - requests[0].receivedAt).to.be.at.least(90);
      expect(requests[2].receivedAt - requests[1].receivedAt).to.be.at.least(180);
      const rows = await rowsTo(to);
      expect(rows.map((r) => r.status)).to.deep.equal(['failed', 'failed', 'sent']);
    });
  });
});
