import type { OpenApiFragment } from '../types';

/** License verification: its endpoints are documented here as they land. */
export const license: OpenApiFragment = {
  tag: {
    name: 'License',
    description:
      'License verification (/verify): software checks a purchased license key. No credential header; 60 requests per minute per IP.',
  },
  paths: {},
};
