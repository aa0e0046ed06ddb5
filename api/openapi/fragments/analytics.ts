import type { OpenApiFragment } from '../types';

/** Storefront analytics collection: its endpoints are documented here as they land. */
export const analytics: OpenApiFragment = {
  tag: {
    name: 'Analytics',
    description:
      'Analytics collection (/api/storefront/analytics): page views, custom events and outbound clicks, one at a time or in batches of up to 30. No token; 120 events per minute per IP, every event of a batch counting.',
  },
  paths: {},
};
