import { components } from './components';
import { analytics } from './fragments/analytics';
import { dev } from './fragments/dev';
import { embed } from './fragments/embed';
import { fivem } from './fragments/fivem';
import { license } from './fragments/license';
import { merchant } from './fragments/merchant';
import { platform } from './fragments/platform';
import { storefront } from './fragments/storefront';
import { webhooks } from './fragments/webhooks';
import { HTTP_METHODS, OpenApiDocument, OpenApiFragment, PathItemObject } from './types';

/** In the order the docs page lists them. */
export const FRAGMENTS: readonly OpenApiFragment[] = [
  embed,
  storefront,
  analytics,
  merchant,
  license,
  fivem,
  webhooks,
  platform,
  dev,
];

export interface DocumentOptions {
  /** PUBLIC_BASE_URL: the one server every interface is reached on. */
  publicBaseUrl: string;
  version?: string;
}

/**
 * The OpenAPI 3.1 document of the whole API, merged from the per-interface fragments. Two fragments that
 * claim the same operation, or schemas of the same name, are a programming error and throw.
 */
export function buildOpenApiDocument(options: DocumentOptions): OpenApiDocument {
  const paths: Record<string, PathItemObject> = {};
  const schemas = { ...components.schemas };
  for (const fragment of FRAGMENTS) {
    for (const [route, item] of Object.entries(fragment.paths)) {
      const merged: PathItemObject = { ...(paths[route] ?? {}) };
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!operation) continue;
        if (merged[method]) throw new Error(`OpenAPI: ${method.toUpperCase()} ${route} is documented twice`);
        merged[method] = operation;
      }
      paths[route] = merged;
    }
    for (const [name, schema] of Object.entries(fragment.schemas ?? {})) {
      if (schemas[name]) throw new Error(`OpenAPI: schema ${name} is defined twice`);
      schemas[name] = schema;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Commerce Platform API',
      version: options.version ?? '0.1.0',
      description:
        'Every interface of the platform, served on one port and told apart by path prefix: Embed (/api/embed), ' +
        'Storefront (/api), Analytics (/api/storefront/analytics), Merchant (/shawarma), License (/verify) and ' +
        'FiveM (/api/fivem), plus the operational routes. Each interface answers in its own envelope.',
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: options.publicBaseUrl, description: 'PUBLIC_BASE_URL of this deployment' }],
    tags: FRAGMENTS.map((f) => f.tag),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: { ...components, schemas },
  };
}
