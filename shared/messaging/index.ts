import type { Knex } from 'knex';
import type { Config } from '../config';
import { OutboxMessenger } from './outbox';
import { TwilioMessenger } from './twilio';
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
      return new TwilioMessenger(knex, { accountSid, authToken, whatsappFrom, smsFrom, apiBaseUrl });
    }
  }
}
