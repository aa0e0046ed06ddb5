import type { OpenApiFragment } from '../types';
import { paymentPagePaths, webhookPaths } from './payments';

/** Payment-provider webhooks, with the sandbox provider's page and the hosted payment pages. */
export const webhooks: OpenApiFragment = {
  tag: {
    name: 'Webhooks',
    description:
      "Inbound payment-provider webhooks, verified by the provider's signature over the exact bytes received.",
  },
  paths: { ...webhookPaths, ...paymentPagePaths },
};
