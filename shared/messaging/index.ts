import type { Knex } from 'knex';
import type { Config } from '../config';
import { OutboxMessenger } from './outbox';
import type { Messenger } from './types';

export type { Messenger, OutgoingMessage, DeliveryResult } from './types';
export { deliveryJobError, PermanentDeliveryError, RetryableDeliveryError } from './errors';
export type { DeliveryChannel } from './errors';

export function createMessenger(config: Config, knex: Knex): Messenger {
  switch (config.messagingDriver) {
    case 'outbox':
      return new OutboxMessenger(knex);
    case 'twilio': {
      const { accountSid, authToken, whatsappFrom, smsFrom, apiBaseUrl } = config.twilio;
      // loadConfig refuses MESSAGING_DRIVER=twilio without both credentials; this guards other callers.
      if (!accountSid || !authToken)
        throw new Error('The twilio driver needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN');
      const settings = { accountSid, authToken, whatsappFrom, smsFrom, apiBaseUrl };
      // The Twilio SDK (about 23 MB of resident memory) is loaded by the first send, so the processes that
      // never send (web, scheduler) do not carry it.
      let twilio: Messenger | undefined;
      const load = (): Messenger => {
        // A synchronous require on purpose: import() would stay a native ESM import under tsx, which
        // cannot resolve a TypeScript file by its extensionless name.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { TwilioMessenger } = require('./twilio') as typeof import('./twilio');
        return (twilio ??= new TwilioMessenger(knex, settings));
      };
      return { driver: 'twilio', send: (message) => load().send(message) };
    }
  }
}
