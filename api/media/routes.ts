import Joi from 'joi';
import { MEDIA_FILE, productImage } from '../../shared/services/catalogue/product-image';
import { defineRoute } from '../http/route';
import { NO_CREDENTIALS } from '../openapi/components';

/** Public files merchants publish: product images (uploaded with the Merchant API). */
export const mediaRoutes = [
  defineRoute({
    method: 'get',
    path: '/media/products/{file}',
    interface: 'platform',
    operationId: 'getProductImage',
    summary: 'A product image',
    description:
      'The image a merchant uploaded with `POST /shawarma/products/{id}/image`; the address is the ' +
      'product’s `image_url`. Each upload gets a new address, so answers are cached for a year.',
    security: NO_CREDENTIALS,
    request: {
      params: Joi.object<{ file: string }, true>({
        file: Joi.string().pattern(MEDIA_FILE).required(),
      }),
    },
    responses: {
      200: {
        description: 'The image.',
        content: {
          'image/jpeg': { schema: { type: 'string', format: 'binary' } },
          'image/png': { schema: { type: 'string', format: 'binary' } },
          'image/gif': { schema: { type: 'string', format: 'binary' } },
        },
      },
      404: { description: 'No such image.' },
    },
    handler: async (ctx, { params }) => {
      const image = await productImage(ctx.deps.storage, params.file);
      ctx.status = 200;
      ctx.type = image.mime;
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = image.body;
      return undefined;
    },
  }),
];
