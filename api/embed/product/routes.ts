import Joi from 'joi';
import { cachedProductView, localizedProductView } from '../../../shared/services/catalogue';
import { buyerLocale } from '../../pay/i18n';
import { embedOk, schemaRef } from '../../openapi/components';
import { defineRoute } from '../../http/route';
import { embedGuards } from '../../guards';
import { cachedRead } from '../../middleware/rate-limit';
import { refused } from '../responses';

export const embedProductRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/embed/product/{productId}',
    interface: 'embed',
    operationId: 'embedGetProduct',
    summary: 'Product details for the widget',
    description:
      'An active product of the embed key’s store with what a checkout interface shows: prices (the spec’s ' +
      'price object; `actual` is what is charged), stock (`quantity` null = unlimited; for code products ' +
      'the number of available keys), image, categories, custom fields with their options and add-on ' +
      'prices, active subscription plans, and the store’s active payment methods with their amount bounds. ' +
      'An unknown, inactive or foreign product, or an id that is not a number, answers 404 "Product not found".',
    guards: cachedRead(embedGuards),
    request: {
      // Any text is accepted: an id that cannot name a product answers 404 like an unknown one.
      params: Joi.object<{ productId: string }, true>({
        productId: Joi.string().max(100).required().description('The product id.'),
      }),
    },
    responses: {
      200: embedOk('The product.', schemaRef('EmbedProduct')),
      404: refused('No such product on sale in this store.', 'Product not found'),
    },
    handler: async (ctx, { params }) => {
      ctx.vary('Accept-Language');
      return localizedProductView(
        await cachedProductView(ctx.deps, ctx.state.store!, params.productId),
        buyerLocale(ctx),
      );
    },
  }),
];
