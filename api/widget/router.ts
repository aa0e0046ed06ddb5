import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { showcase } from '../../shared/services/catalog/showcase';
import { NotFoundError } from '../../shared/errors';
import type { AppContext } from '../context';
import { WidgetBundle } from './bundle';
import { DEMO_CSP, DEMO_CSS, demoPage } from './demo';

/**
 * GET /widget/v1.js (CONTRACT section 9): the embeddable checkout widget, loadable from any site (CORS *,
 * cross-origin resource policy), cacheable with a content-hash ETag and revalidated after 5 minutes, so a
 * new release reaches pages within minutes while repeat loads cost a 304.
 * GET /demo/widget: a sample merchant page embedding it, development only.
 */

const MAX_AGE_SECONDS = 300;

export function widgetRouter(deps: Deps, bundle = new WidgetBundle()): Router {
  const router = new Router();

  router.get('/widget/v1.js', async (ctx: AppContext) => {
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
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = loaded.gzip;
    } else ctx.body = loaded.body;
  });

  if (deps.config.nodeEnv !== 'production') {
    const fixture = path.resolve(
      __dirname,
      '..',
      '..',
      ...(__dirname.includes(`${path.sep}dist${path.sep}`) ? ['..'] : []),
      'fixtures',
      'demo.json',
    );
    router.get('/demo/widget', async (ctx: AppContext) => {
      const key = typeof ctx.query.key === 'string' ? ctx.query.key : demoEmbedKey(fixture);
      ctx.set('Content-Security-Policy', DEMO_CSP);
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = demoPage(key ? await showcase(ctx.deps.knex, key) : null, deps.config.publicBaseUrl);
    });
    router.get('/demo/widget.css', async (ctx: AppContext) => {
      ctx.type = 'text/css; charset=utf-8';
      ctx.body = DEMO_CSS;
    });
  }
  return router;
}

function demoEmbedKey(fixture: string): string | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(fixture, 'utf8')) as { stores?: { embed_key?: string }[] };
    return parsed.stores?.[0]?.embed_key ?? null;
  } catch {
    return null;
  }
}
