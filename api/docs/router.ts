import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Deps } from '../../shared/deps';
import { NotFoundError } from '../../shared/errors';
import type { AppContext } from '../context';
import { buildOpenApiDocument } from '../openapi/document';

/**
 * GET /openapi.json and the docs page GET /docs. The page is Swagger UI from the swagger-ui-dist package,
 * served from this server: no CDN, so the docs work offline and behind strict egress rules.
 */

const ASSET_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The only files served from the package, with their types. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};
const INIT_SCRIPT = 'init.js';

// A separate script rather than an inline one, so the page works under a Content-Security-Policy without
// 'unsafe-inline' for scripts.
const initScript = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
});
`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Commerce Platform API</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <noscript>This page needs JavaScript. The raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
    <script src="/docs/assets/${INIT_SCRIPT}"></script>
  </body>
</html>
`;

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI sets style attributes and loads inline SVG images.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
].join('; ');

export function docsRouter(deps: Deps): Router {
  const router = new Router();
  let document: string | undefined;

  router.get('/openapi.json', async (ctx: AppContext) => {
    document ??= JSON.stringify(buildOpenApiDocument({ publicBaseUrl: deps.config.publicBaseUrl }));
    ctx.type = 'application/json';
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = document;
  });

  router.get('/docs', async (ctx: AppContext) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', CSP);
    ctx.body = page;
  });

  router.get('/docs/assets/:file', async (ctx: AppContext) => {
    const file = String(ctx.params.file);
    ctx.set('Cache-Control', 'public, max-age=3600');
    if (file === INIT_SCRIPT) {
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.body = initScript;
      return;
    }
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) throw new NotFoundError('Not found');
    ctx.type = type;
    ctx.body = fs.createReadStream(path.join(ASSET_DIR, file));
  });

  return router;
}
