import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument } from '../../api/http/openapi';
import { HTTP_METHODS, ParameterObject, Reference } from '../../api/openapi/types';
import type { OpenApiDocument } from '../../api/openapi/types';
import { allRoutes } from '../../api/routes';
import { sharedDeps } from '../helpers/deps';
import { TEST_ENV } from '../helpers/env';
import { startServer, TestServer } from '../helpers/http';

const isReference = (p: ParameterObject | Reference): p is Reference => '$ref' in p;

function resolveParameter(doc: OpenApiDocument, p: ParameterObject | Reference): ParameterObject {
  if (!isReference(p)) return p;
  const name = p.$ref.replace('#/components/parameters/', '');
  const found = doc.components.parameters[name];
  if (!found) throw new Error(`unresolvable parameter ${p.$ref}`);
  return found;
}

describe('OpenAPI document', () => {
  const routes = allRoutes({ nodeEnv: 'test' });
  const doc = buildOpenApiDocument(routes, { publicBaseUrl: 'https://shop.example.test' });

  it('has one operation per declared route, and nothing else', () => {
    const documented: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of HTTP_METHODS) if (item[method]) documented.push(`${method.toUpperCase()} ${path}`);
    }
    const declared = routes.map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(documented.sort()).to.deep.equal([...declared].sort());
    expect(declared).to.include.members(['GET /healthz', 'GET /openapi.json', 'POST /api/embed/auth/start']);
  });

  it('generates request schemas from the joi schemas that validate them', () => {
    const start = doc.paths['/api/embed/auth/start']!.post!;
    const body = (start.requestBody as { content: Record<string, { schema: Record<string, unknown> }> })
      .content['application/json']!.schema as {
      required: string[];
      properties: Record<string, { maximum?: number; anyOf?: unknown[] }>;
    };
    expect(body.required).to.have.members(['product_id', 'country_code', 'phone']);
    expect(body.properties.product_id!.maximum, 'ids are bounded as Postgres integers').to.equal(
      2_147_483_647,
    );
    const guest = doc.paths['/api/embed/guest/checkout']!.post!;
    const content = (guest.requestBody as { content: Record<string, { schema: Record<string, unknown> }> })
      .content;
    expect(Object.keys(content)).to.have.members(['application/json', 'multipart/form-data']);
    const email = (
      content['application/json']!.schema as { properties: Record<string, { maxLength?: number }> }
    ).properties.customer_email!;
    expect(email.maxLength).to.equal(254);
    const complete = doc.paths['/api/embed/auth/complete']!.post!;
    const names = (
      complete.requestBody as {
        content: Record<string, { schema: { properties: Record<string, { minLength?: number }> } }>;
      }
    ).content['application/json']!.schema.properties;
    expect(names.firstName!.minLength).to.equal(1);
  });

  it('adds each interface’s standard answers: 422 everywhere (the input layer), 429 where limited', () => {
    const start = doc.paths['/api/embed/auth/start']!.post!;
    expect(Object.keys(start.responses)).to.include.members([
      '200',
      '401',
      '403',
      '404',
      '422',
      '429',
      '500',
      '503',
    ]);
    // Even a route without schemas: the input layer refuses NUL or broken UTF-8 in any path or query.
    const healthz = doc.paths['/healthz']!.get!;
    expect(Object.keys(healthz.responses)).to.include('422').and.to.not.include('429');
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
    expect([...tags]).to.include.members(['Embed', 'Storefront', 'Platform']);
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

  it('declares the headers a client sends and reads', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((m) => item[m]).map((m) => ({ where: `${m.toUpperCase()} ${path}`, op: item[m]! })),
    );
    const headerNames = (op: (typeof operations)[number]['op']): string[] =>
      (op.parameters ?? [])
        .map((p) => resolveParameter(doc, p))
        .filter((p) => p.in === 'header')
        .map((p) => p.name);
    for (const { where, op } of operations) {
      expect(headerNames(op), where).to.include.members(['Accept-Language', 'X-Request-Id']);
      for (const [status, response] of Object.entries(op.responses)) {
        const resolved =
          '$ref' in response
            ? doc.components.responses[response.$ref.replace('#/components/responses/', '')]!
            : response;
        const headers = Object.keys(resolved.headers ?? {});
        expect(headers, `${where} ${status}`).to.include('X-Request-Id');
        if (status === '429' || status === '503')
          expect(headers, `${where} ${status}`).to.include('Retry-After');
      }
    }
    const byId = new Map(operations.map((o) => [o.op.operationId, o.op]));
    for (const id of ['merchantCreateOrder', 'merchantCreateRefund']) {
      expect(headerNames(byId.get(id)!), id).to.include('Idempotency-Key');
      const replay = byId.get(id)!.responses['200'] as { headers: Record<string, unknown> };
      expect(replay.headers, id).to.have.property('Idempotent-Replayed');
    }
    expect(headerNames(byId.get('storefrontCartAdd')!)).to.include('X-Cart-Id');
    const embedOk = byId.get('embedGetProduct')?.responses['200'] as { headers: Record<string, unknown> };
    expect(embedOk.headers).to.include.keys('X-RateLimit-Limit', 'X-RateLimit-Remaining');
  });

  it('documents 500 and 503 in each interface’s error envelope, and `data` as required on success', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        for (const status of ['500', '503']) {
          const response = op.responses[status]!;
          const resolved =
            '$ref' in response
              ? doc.components.responses[response.$ref.replace('#/components/responses/', '')]!
              : response;
          const schema = resolved.content?.['application/json']?.schema;
          if (!schema) continue; // an HTML page's own 503
          expect(schema.$ref ?? schema.allOf, `${where} ${status}: a named envelope`).to.not.equal(undefined);
        }
        for (const [status, response] of Object.entries(op.responses)) {
          if (!status.startsWith('2') || '$ref' in response) continue;
          const allOf = response.content?.['application/json']?.schema?.allOf;
          if (!allOf?.some((s) => /Success$/.test(s.$ref ?? ''))) continue;
          expect(
            allOf.some((s) => s.required?.includes('data')),
            `${where} ${status}: data is required in a success envelope`,
          ).to.equal(true);
        }
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
    // Under the platform's name and mark, with no third-party banner (Swagger UI's top bar left out).
    expect(res.text).to.contain('<title>Matjar API</title>').and.to.contain('/docs/assets/matjar-logo.svg');
    expect(res.text).to.not.contain('favicon-32x32.png');
    const initJs = await server.request('/docs/assets/init.js');
    expect(initJs.text).to.contain("layout: 'BaseLayout'").and.to.not.contain('StandaloneLayout');
    const logo = await server.request('/docs/assets/matjar-logo.svg');
    expect(logo.status).to.equal(200);
    expect(logo.headers.get('content-type')).to.match(/^image\/svg\+xml/);
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
