import fs from 'node:fs';
import path from 'node:path';
import Joi from 'joi';
import { NotFoundError } from '../../shared/errors';
import { buildOpenApiDocument } from '../http/openapi';
import { defineRoute } from '../http/route';
import { htmlResponse } from '../openapi/components';
import { withArabicErrorExamples } from '../openapi/localize';
import { fromAcceptLanguage, type Locale } from '../pay/i18n';

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
/** The platform's own mark and the page's own style (no third-party banner: Swagger UI's top bar is left out). */
const LOGO = 'matjar-logo.svg';
const BRAND_CSS = 'matjar.css';
const logoSvg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" role="img" aria-label="Matjar"><rect width="32" height="32" rx="7" fill="#0f766e"/><path d="M8 13h16l-1.6 11H9.6z" fill="#fff"/><path d="M12 13v-2a4 4 0 0 1 8 0v2" fill="none" stroke="#fff" stroke-width="2"/></svg>`;
const brandCss = `.matjar-bar{display:flex;align-items:center;gap:.6rem;padding:.8rem 1.2rem;background:#0f766e;color:#fff;font:600 1.1rem system-ui,sans-serif}
.matjar-bar img{width:32px;height:32px;border-radius:7px;background:#fff}
.matjar-bar a{color:#fff}
`;

// A separate script rather than an inline one, so the page works under a Content-Security-Policy without
// 'unsafe-inline' for scripts.
// `/docs?lang=ar` asks for the document's Arabic error examples (the browser's Accept-Language does too).
const initScript = `window.addEventListener('load', function () {
  var lang = new URLSearchParams(location.search).get('lang');
  window.ui = SwaggerUIBundle({
    url: '/openapi.json' + (lang === 'ar' || lang === 'en' ? '?lang=' + lang : ''),
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout',
  });
});
`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Matjar API</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
    <link rel="stylesheet" href="/docs/assets/${BRAND_CSS}" />
    <link rel="icon" type="image/svg+xml" href="/docs/assets/${LOGO}" />
  </head>
  <body>
    <header class="matjar-bar"><img src="/docs/assets/${LOGO}" alt="" /><span>Matjar API</span></header>
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

/** The project's root (the folder with package.json), from the sources or from dist/. */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

/**
 * The guides the OpenAPI document links (`/docs/<name>.md`), served as they are in docs/: for integrators,
 * so neither the operator's pages nor anything outside this list.
 */
export const SERVED_GUIDES: readonly string[] = [
  'errors',
  'webhooks',
  'versioning',
  'license',
  'fivem',
  'widget',
  'merchant',
  'storefront',
];
const DOCS_DIR = path.join(projectRoot(), 'docs');

/** The document is built once per app and language, from the routes that app mounts. */
const documents = new WeakMap<object, Partial<Record<Locale, string>>>();

export const docsRoutes = [
  defineRoute({
    method: 'get',
    path: '/openapi.json',
    interface: 'platform',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description:
      'The error answers’ example messages are in the reader’s language: Arabic for `?lang=ar` or an ' +
      '`Accept-Language` that prefers Arabic (as the Embed and Storefront APIs answer), English otherwise.',
    request: {
      query: Joi.object<{ lang?: Locale }, true>({ lang: Joi.string().valid('ar', 'en') }),
    },
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document of every route the API serves.',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
    },
    handler: (ctx, { query }) => {
      const locale: Locale = query.lang ?? fromAcceptLanguage(ctx.get('Accept-Language')) ?? 'en';
      const built = documents.get(ctx.app) ?? {};
      documents.set(ctx.app, built);
      let document = built[locale];
      if (!document) {
        const english = buildOpenApiDocument(ctx.routes, { publicBaseUrl: ctx.deps.config.publicBaseUrl });
        document = JSON.stringify(locale === 'ar' ? withArabicErrorExamples(english) : english);
        built[locale] = document;
      }
      ctx.set('Vary', 'Accept-Language');
      ctx.set('Content-Language', locale);
      ctx.type = 'application/json';
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = document;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs',
    interface: 'platform',
    operationId: 'getDocs',
    summary: 'API documentation page',
    description: 'Swagger UI rendering /openapi.json, served with its assets from this server (no CDN).',
    responses: { 200: htmlResponse('HTML page.') },
    handler: (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Content-Security-Policy', CSP);
      ctx.body = page;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs/assets/{file}',
    interface: 'platform',
    operationId: 'getDocsAsset',
    summary: 'Asset of the documentation page',
    request: {
      params: Joi.object<{ file: string }, true>({
        file: Joi.string().max(100).required().description('One of the Swagger UI files the page loads.'),
      }),
    },
    responses: {
      200: {
        description: 'The file (JavaScript, CSS or image).',
        content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
      },
      404: 'PlatformError',
    },
    handler: (ctx, { params }) => {
      const file = params.file;
      ctx.set('Cache-Control', 'public, max-age=3600');
      if (file === INIT_SCRIPT) {
        ctx.type = 'application/javascript; charset=utf-8';
        ctx.body = initScript;
        return;
      }
      if (file === LOGO || file === BRAND_CSS) {
        ctx.type = file === LOGO ? 'image/svg+xml' : 'text/css; charset=utf-8';
        ctx.body = file === LOGO ? logoSvg : brandCss;
        return;
      }
      const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
      if (!type) throw new NotFoundError('Not found');
      ctx.type = type;
      ctx.body = fs.createReadStream(path.join(ASSET_DIR, file));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs/{page}',
    interface: 'platform',
    operationId: 'getDocsGuide',
    summary: 'A guide the API documentation links',
    description: `Markdown, as kept in the repository's docs/: ${SERVED_GUIDES.map((g) => `[${g}.md](/docs/${g}.md)`).join(', ')}.`,
    request: {
      params: Joi.object<{ page: string }, true>({
        page: Joi.string()
          .valid(...SERVED_GUIDES.map((g) => `${g}.md`))
          .required()
          .description('The guide, e.g. `errors.md`.'),
      }),
    },
    responses: {
      200: {
        description: 'The guide (Markdown).',
        content: { 'text/markdown': { schema: { type: 'string' } } },
      },
    },
    handler: async (ctx, { params }) => {
      const text = await fs.promises.readFile(path.join(DOCS_DIR, params.page), 'utf8').catch(() => null);
      if (text === null) throw new NotFoundError('Not found');
      ctx.type = 'text/markdown; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = text;
    },
  }),
];
