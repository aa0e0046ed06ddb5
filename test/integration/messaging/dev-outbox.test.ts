import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { OutboxMessenger } from '../../../shared/messaging/outbox';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

describe('GET /__dev/outbox', () => {
  describe('outside production', () => {
    let deps: Deps;
    let server: TestServer;

    before(async () => {
      deps = await isolatedDeps({ NODE_ENV: 'development' });
      server = await startServer(deps);
    });
    after(() => server.close());

    it("lists the outbox driver's messages to one number, newest first", async () => {
      const messenger = new OutboxMessenger(deps.knex);
      const to = '966500000777';
      await messenger.send({ to, body: 'Your code is 1111', route: 'whatsapp_first', purpose: 'otp' });
      await messenger.send({ to, body: 'Your code is 2222', route: 'sms_only', purpose: 'otp' });
      await messenger.send({
        to: '966500000778',
        body: 'Your code is 3333',
        route: 'sms_only',
        purpose: 'otp',
      });
      // A real delivery to the same number: not the outbox's, and without a body anyway.
      await deps.knex('outbound_messages').insert({
        to,
        channel: 'sms',
        driver: 'twilio',
        body: null,
        purpose: 'otp',
        status: 'sent',
      });

      const res = await server.request(`/__dev/outbox?to=${to}`);
      expect(res.status).to.equal(200);
      const messages = res.body.messages as {
        to: string;
        channel: string;
        body: string;
        created_at: string;
      }[];
      expect(messages.map((m) => [m.to, m.channel, m.body])).to.deep.equal([
        [to, 'sms', 'Your code is 2222'],
        [to, 'whatsapp', 'Your code is 1111'],
      ]);
      expect(Object.keys(messages[0]).sort()).to.deep.equal(['body', 'channel', 'created_at', 'to']);
      expect(new Date(messages[0].created_at).toISOString()).to.equal(messages[0].created_at);
      expect(messages[0].body.match(/\b\d{4}\b/g)).to.deep.equal(['2222']);
    });

    it('answers an empty list for a number with no messages', async () => {
      const res = await server.request('/__dev/outbox?to=966511111111');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ messages: [] });
    });

    it('refuses a number that is not digits with a 422 naming the field', async () => {
      for (const query of ['?to=%2B966500000777', '?to=abc', '']) {
        const res = await server.request(`/__dev/outbox${query}`);
        expect(res.status, query).to.equal(422);
        expect(res.body.error_code).to.equal('validation_failed');
        expect(Object.keys(res.body.errors as Record<string, string[]>)).to.deep.equal(['to']);
      }
    });
  });

  describe('in production', () => {
    let server: TestServer;

    before(async () => {
      server = await startServer(await isolatedDeps({ NODE_ENV: 'production' }));
    });
    after(() => server.close());

    it('does not exist', async () => {
      const res = await server.request('/__dev/outbox?to=966500000777');
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({
        error_code: 'not_found',
        message: 'Not found',
        doc_url: '/docs/errors.md#not_found',
      });
    });
  });
});
