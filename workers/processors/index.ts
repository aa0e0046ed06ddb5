import { analyticsProcessor } from './analytics';
import { emailsProcessor } from './emails';
import { fivemProcessor } from './fivem';
import { fulfilmentProcessor } from './fulfilment';
import { licensesProcessor } from './licenses';
import { maintenanceProcessor } from './maintenance';
import { merchantWebhooksProcessor } from './merchant-webhooks';
import { messagesProcessor } from './messages';
import { otpProcessor } from './otp';
import { paymentsProcessor } from './payments';
import { subscriptionsProcessor } from './subscriptions';
import type { ProcessorRegistry } from './types';

export type { JobOf, ProcessorRegistry, QueueProcessor } from './types';

/**
 * Every queue this codebase can process. A queue is listed once its processor exists; until then its jobs
 * wait in Redis (visible on the dashboard) rather than being failed by a placeholder.
 */
export const processors: ProcessorRegistry = {
  maintenance: maintenanceProcessor,
  otp: otpProcessor,
  payments: paymentsProcessor,
  fulfilment: fulfilmentProcessor,
  licenses: licensesProcessor,
  fivem: fivemProcessor,
  messages: messagesProcessor,
  emails: emailsProcessor,
  'merchant-webhooks': merchantWebhooksProcessor,
  analytics: analyticsProcessor,
  subscriptions: subscriptionsProcessor,
};
