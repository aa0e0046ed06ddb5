import { expect } from 'chai';
import type Router from '@koa/router';
import { Validator } from '@seriousme/openapi-schema-validator';
import { DASHBOARD_PATH } from '../../api/admin/router';
import { buildOpenApiDocument } from '../../api/openapi/document';
import { HTTP_METHODS, OpenApiDocument, ParameterObject, Reference } from '../../api/openapi/types';
import { mountedRouters } from '../../api/routes';
import { sharedDeps } from '../helpers/deps';
import { TEST_ENV } from '../helpers/env';
import { startServer, TestServer } from '../helpers/http';

interface Route {
  method: string;
  path: string;
}

/**
 * A router path in OpenAPI form: path-to-regexp optional groups (`{/*rest}`) dropped, `:id` and `*rest`
 * written `{id}` and `{rest}`.
 */
function toOpenApiPath(routerPath: string): string {
  return routerPath
    .replace(/\{[^}]*\}/g, '')
    .replace(/:(\w+)/g, '{$1}')
    .replace(/\*(\w+)/g, '{$1}');
}

/**
 * Every (method, path) the app's routers answer, HEAD left out (Koa answers it for every GET). bull-board's
 * own routes (its UI files and its JSON API, all below DASHBOARD_PATH behind the same basic auth) are
 * internal to the dashboard and covered by its one documented entry, GET DASHBOARD_PATH.
 */
function mountedRoutes(routers: Router[]): { routes: Route[]; unreadable: string[] } {
  const routes = new Map<string, Route>();
  const unreadable: string[] = [];
  for (const router of routers) {
    for (const layer of router.stack) {
      // Layers without methods are router.use() middleware, not routes.
      if (layer.methods.length === 0) continue;
      if (typeof layer.path !== 'string') {
        unreadable.push(String(layer.path));
        continue;
      }
      const path = toOpenApiPath(layer.path);
      if (path === DASHBOARD_PATH || path.startsWith(`${DASHBOARD_PATH}/`)) {
        routes.set(`GET ${DASHBOARD_PATH}`, { method: 'GET', path: DASHBOARD_PATH });
        continue;
      }
      for (const method of layer.methods) {
        if (method === 'HEAD') continue;
        routes.set(`${method} ${path}`, { method, path });
      }
    }
  }
  return { routes: [...routes.values()], unreadable };
}

function documentedRoutes(doc: OpenApiDocument): Route[] {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) if (item[method]) routes.push({ method: method.toUpperCase(), path });
  }
  return routes;
}

const isReference = (p: ParameterObject | Reference): p is Reference => '$ref' in p;

function resolveParameter(doc: OpenApiDocument, p: ParameterObject | Reference): ParameterObject {
  if (!isReference(p)) return p;
  const name = p.$ref.replace('#/components/parameters/', '');
  const found = doc.components.parameters[name];
  if (!found) throw new Error(`unresolvable parameter ${p.$ref}`);
  return found;
}

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument({ publicBaseUrl: 'https://shop.example.test' });
  let routers: Router[];

  before(async () => {
    routers = mountedRouters(await sharedDeps());
  });

  it('documents every route the app mounts', () => {
    const { routes, unreadable } = mountedRoutes(routers);
    expect(unreadable, 'routes declared with a RegExp cannot be matched to the document').to.deep.equal([]);
    const documented = new Set(documentedRoutes(doc).map((r) => `${r.method} ${r.path}`));
    const missing = routes.map((r) => `${r.method} ${r.path}`).filter((key) => !documented.has(key));
    expect(
      missing,
      'mounted routes missing from the OpenAPI document (add them to api/openapi/fragments)',
    ).to.deep.equal([]);
    // Guards the walk itself: a walk that found nothing would pass the check above vacuously.
    expect(routes.map((r) => `${r.method} ${r.path}`)).to.include.members([
      'GET /healthz',
      'GET /openapi.json',
      `GET ${DASHBOARD_PATH}`,
    ]);
  });

  it('documents nothing that no router serves', () => {
    const mounted = new Set(mountedRoutes(routers).routes.map((r) => `${r.method} ${r.path}`));
    const stale = documentedRoutes(doc)
      .map((r) => `${r.method} ${r.path}`)
      .filter((key) => !mounted.has(key));
    expect(stale, 'documented operations that no mounted router answers').to.deep.equal([]);
  });

  it('is valid OpenAPI 3.1 according to the official schema', async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.servers).to.deep.equal([
      { url: 'https://shop.example.test', description: 'PUBLIC_BASE_URL of this deployment' },
    ]);
  });

  it('gives every operation responses, a unique operationId and a declared tag', () => {
    const tags = new Set(doc.tags.map((t) => t.name));
    expect([...tags]).to.have.members([
      'Embed',
      'Storefront',
      'Analytics',
      'Merchant',
      'License',
      'FiveM',
      'Platform',
      'Webhooks',
      'Dev',
    ]);
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        expect(Object.keys(op.responses), `${where} has no responses`).to.not.be.empty;
        expect(ids.has(op.operationId), `${where}: operationId ${op.operationId} is used twice`).to.equal(
          false,
        );
        ids.add(op.operationId);
        for (const tag of op.tags)
          expect(tags.has(tag), `${where}: tag ${tag} is not declared`).to.equal(true);
      }
    }
  });

  it('declares every path parameter, and no path parameter the path lacks', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])]
          .map((p) => resolveParameter(doc, p))
          .filter((p) => p.in === 'path');
        expect(
          declared.every((p) => p.required === true),
          `${method.toUpperCase()} ${path}: path parameters must be required`,
        ).to.be.true;
        expect(declared.map((p) => p.name).sort(), `${method.toUpperCase()} ${path}`).to.deep.equal(inPath);
      }
    }
  });
});

describe('GET /openapi.json and /docs', () => {
  let server: TestServer;

  before(async () => {
    server = await startServer(await sharedDeps());
  });
  after(() => server.close());

  it('serves the document with this deployment as its server', async () => {
    const res = await server.request('/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.servers).to.deep.equal([
      { url: TEST_ENV.PUBLIC_BASE_URL, description: 'PUBLIC_BASE_URL of this deployment' },
    ]);
    expect(Object.keys(res.body.paths as object)).to.include('/api/embed/auth/start');
  });

  it('serves a docs page that loads only assets of this server', async () => {
    const res = await server.request('/docs');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.headers.get('content-security-policy')).to.contain("script-src 'self'");
    const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).to.include('/docs/assets/swagger-ui-bundle.js');
    expect(
      sources.filter((s) => /^(https?:)?\/\//.test(s)),
      'nothing from another host',
    ).to.deep.equal([]);

    for (const asset of sources.filter((s) => s.startsWith('/docs/assets/'))) {
      const file = await server.request(asset);
      expect(file.status, asset).to.equal(200);
      expect(file.text.length, asset).to.be.greaterThan(0);
    }
    const init = await server.request('/docs/assets/init.js');
    expect(init.text).to.contain("url: '/openapi.json'");
    expect((await server.request('/docs/assets/swagger-ui.css')).headers.get('content-type')).to.match(
      /^text\/css/,
    );
  });

  it('serves no file of the package beyond the page’s own assets', async () => {
    for (const path of [
      '/docs/assets/package.json',
      '/docs/assets/..%2Fpackage.json',
      '/docs/assets/index.html',
    ]) {
      const res = await server.request(path);
      expect(res.status, path).to.equal(404);
    }
  });
});
