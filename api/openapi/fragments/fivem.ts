import type { OpenApiFragment } from '../types';

/** The FiveM API: its endpoints are documented here as they land. */
export const fivem: OpenApiFragment = {
  tag: {
    name: 'FiveM',
    description:
      "FiveM API (/api/fivem): the command queue a game-server resource polls, authenticated by the store's FiveM secret in X-FiveM-Secret.",
  },
  paths: {},
};
