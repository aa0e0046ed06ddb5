import { schemaRef } from '../openapi/components';
import type { ResponseObject } from '../openapi/types';

/** An Embed error answer with its own description and an example message. */
export const refused = (description: string, message: string): ResponseObject => ({
  description,
  content: { 'application/json': { schema: schemaRef('EmbedError'), example: { success: false, message } } },
});
