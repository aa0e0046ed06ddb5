import type { Knex } from 'knex';
import type { Config } from '../config';
import { OutboxMessenger } from './outbox';
import type { Messenger } from './types';

export type { Messenger, OutgoingMessage, DeliveryResult } from './types';

export function createMessenger(config: Config, knex: Knex): Messenger {
  switch (config.messagingDriver) {
    case 'outbox':
      return new OutboxMessenger(knex);
    case 'twilio':
      throw new Error('MESSAGING_DRIVER=twilio: the Twilio driver is wired in shared/messaging/twilio.ts');
  }
}
