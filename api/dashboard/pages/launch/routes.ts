import Joi from 'joi';
import { NotFoundError } from '../../../../shared/errors';
import { findProduct } from '../../../../shared/services/catalogue/product-form';
import { noteSnippetCopied } from '../../../../shared/services/launch/checklist';
import { defineRoute } from '../../../http/route';
import { htmlResponse, redirectResponse } from '../../../openapi/components';
import { formBody, idParam, notFound, pageScriptRoute, postAnswers } from '../../forms';
import { sendPage } from '../../layout';
import { dashboardOf, signedIn } from '../../session';
import { LAUNCH_SCRIPT } from './script';

/** The launch checklist's own routes (docs/dashboard.md, "Launch checklist"). */
export const dashboardLaunchRoutes = [
  pageScriptRoute({
    path: '/merchant/assets/launch.js',
    operationId: 'dashboardLaunchScript',
    summary: 'Merchant dashboard: the product page’s Copy buttons',
    description:
      'Copies the buy link or the widget snippet to the clipboard and posts that Copy form by fetch (the ' +
      'launch checklist’s “share” step). The page works without it.',
    source: LAUNCH_SCRIPT,
  }),
  defineRoute({
    method: 'post',
    path: '/merchant/products/{productId}/snippet-copied',
    interface: 'platform',
    operationId: 'dashboardSnippetCopied',
    summary: 'Merchant dashboard: the product’s widget snippet was copied',
    description:
      'The product page’s Copy buttons (the buy link’s and the widget snippet’s): notes that the product was ' +
      'shared (the launch checklist’s “share the product’s link or paste the widget” step), then 303 back ' +
      'to the share card.',
    guards: signedIn('products.edit'),
    request: {
      params: idParam('productId') as Joi.ObjectSchema<{ productId: number }>,
      ...formBody({}),
    },
    responses: {
      303: redirectResponse('Back to the product’s snippet.'),
      404: htmlResponse('No such product in this store.'),
      ...postAnswers,
    },
    handler: async (ctx, { params }) => {
      const { store } = dashboardOf(ctx);
      try {
        await findProduct(ctx.deps.knex, store.id, params.productId);
      } catch (err) {
        if (err instanceof NotFoundError) return notFound(ctx);
        throw err;
      }
      await noteSnippetCopied(ctx.deps.knex, store.id);
      sendPage(ctx, { status: 303, location: `/merchant/products/${params.productId}#share` });
    },
  }),
];
