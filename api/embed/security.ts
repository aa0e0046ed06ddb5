import type { SecurityRequirement } from '../openapi/types';

/** The embed key (header or query) together with a customer bearer token. */
export const EMBED_WITH_TOKEN: SecurityRequirement[] = [
  { EmbedKey: [], CustomerBearer: [] },
  { EmbedKeyQuery: [], CustomerBearer: [] },
];
