import type { OpenApiFragment } from '../types';

/** The Merchant API: its endpoints are documented here as they land. */
export const merchant: OpenApiFragment = {
  tag: {
    name: 'Merchant',
    description:
      'Merchant API (/shawarma): store data, orders, products, categories and subscriptions. Bearer merchant token of a paid-plan store; 60 requests per minute per token.',
  },
  paths: {},
};
