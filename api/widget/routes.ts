import fs from 'node:fs';
import path from 'node:path';
import Joi from 'joi';
import { NotFoundError } from '../../shared/errors';
import { showcase } from '../../shared/services/catalogue/showcase';
import { defineRoute } from '../http/route';
import { htmlResponse } from '../openapi/components';
import { WidgetBundle } from './bundle';
import { DEMO_CSP, DEMO_CSS, demoPage } from './demo';

/**
 * GET /widget/v1.js (docs/operations.md): the embeddable checkout widget, loadable from any site (CORS *,
 * cross-origin resource policy), cacheable with a content-hash ETag and revalidated after 5 minutes, so a
 * new release reaches pages within minutes while repeat loads cost a 304.
 */

const MAX_AGE_SECONDS = 300;
const bundle = new WidgetBundle();

export const widgetRoutes = [
  defineRoute({
    method: 'get',
    path: '/widget/v1.js',
    interface: 'platform',
    operationId: 'getWidgetScript',
    summary: 'The embeddable checkout widget',
    description:
      'One script a merchant adds to any page: every element with `data-matjar-product` and ' +
      '`data-matjar-key` then opens the purchase dialog. Served with `Access-Control-Allow-Origin: *`, ' +
      'an ETag (content hash) and `Cache-Control: public, max-age=300`; gzip when accepted. See [docs/widget.md](/docs/widget.md).',
    security: [],
    responses: {
      200: {
        description: 'The minified script.',
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
      304: { description: 'Not modified: the ETag sent in If-None-Match is current.' },
      404: 'PlatformError',
    },
    handler: (ctx) => {
      const loaded = bundle.load();
      if (!loaded) throw new NotFoundError('The widget is not built: run `npm run build`');
      ctx.set({
        'Access-Control-Allow-Origin': '*',
        'Cross-Origin-Resource-Policy': 'cross-origin',
        'Cache-Control': `public, max-age=${MAX_AGE_SECONDS}`,
        'X-Content-Type-Options': 'nosniff',
        ETag: loaded.etag,
      });
      ctx.vary('Accept-Encoding');
      ctx.type = 'application/javascript; charset=utf-8';
      // ctx.fresh compares the validators only for a 2xx answer.
      ctx.status = 200;
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
        ctx.set('Content-Encoding', 'gzip');
        ctx.body = loaded.gzip;
      } else ctx.body = loaded.body;
    },
  }),
];

const DEMO_FIXTURE = path.join(path.dirname(bundle.file), '..', '..', 'fixtures', 'demo.json');

function demoEmbedKey(): string | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(DEMO_FIXTURE, 'utf8')) as { stores?: { embed_key?: string }[] };
    return parsed.stores?.[0]?.embed_key ?? null;
  } catch {
    return null;
  }
}

/** A sample merchant page embedding the widget for the demo store (development only, like /__dev). */
export const widgetDemoRoutes = [
  defineRoute({
    method: 'get',
    path: '/demo/widget',
    interface: 'platform',
    operationId: 'getWidgetDemo',
    summary: 'Widget demo page (development only)',
    description:
      'A sample merchant page with a buy button per product of the demo store (fixtures/demo.json, or the ' +
      'store of `key`), in English and Arabic, light and dark. Absent when NODE_ENV=production.',
    security: [],
    request: {
      query: Joi.object<{ key?: string }, true>({
        key: Joi.string().max(200).description('Embed key of the store to show; default: the demo store.'),
      }),
    },
    responses: { 200: htmlResponse('HTML page.') },
    handler: async (ctx, { query }) => {
      const key = query.key ?? demoEmbedKey();
      ctx.set('Content-Security-Policy', DEMO_CSP);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = demoPage(key ? await showcase(ctx.deps.knex, key) : null, ctx.deps.config.publicBaseUrl);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/demo/widget.css',
    interface: 'platform',
    operationId: 'getWidgetDemoStyles',
    summary: 'Stylesheet of the widget demo page (development only)',
    security: [],
    responses: { 200: { description: 'CSS.', content: { 'text/css': { schema: { type: 'string' } } } } },
    handler: (ctx) => {
      ctx.type = 'text/css; charset=utf-8';
      ctx.body = DEMO_CSS;
    },
  }),
];
