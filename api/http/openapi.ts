import type Joi from 'joi';
import parseJoi from 'joi-to-json';
import { components, ref } from '../openapi/components';
import { sampleOf } from '../openapi/examples';
import type {
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  PathItemObject,
  Reference,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from '../openapi/types';
import { webhookEventSchemas, webhooksSection } from '../openapi/webhooks';
import { INTERFACES, InterfaceName } from '../interfaces';
import type { ResponseDoc, Route } from './route';
import { MEDIA_CHECKED } from './mount';

/**
 * The OpenAPI 3.1 document, generated from the route declarations: request schemas come from the joi
 * schemas that validate them (joi-to-json), answers from the declarations' `responses` plus the
 * interface's standard errors (api/interfaces.ts). No part of it is written by hand elsewhere.
 */

export interface DocumentOptions {
  /** PUBLIC_BASE_URL: the one server every interface is reached on. */
  publicBaseUrl: string;
  version?: string;
}

/** Joi.any() comes out as "every JSON type"; in JSON Schema that is no `type` at all. */
const ANY_TYPE = ['array', 'boolean', 'number', 'object', 'string', 'null'];
/** Keywords whose value is one schema, where joi-to-json may write a boolean schema. */
const SCHEMA_KEYWORDS = new Set(['if', 'then', 'else', 'not', 'items', 'contains', 'propertyNames']);

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * joi-to-json writes what joi enforces; some things are adjusted for the document, so that tools take it
 * as it is (Redocly and Spectral lint it in test/integration/openapi-lint.test.ts):
 * - unknown keys are stripped by the validator rather than refused, so objects do not say
 *   `additionalProperties: false`, and `Joi.object().pattern()` appears only as `patternProperties`;
 * - a RegExp's flags leak into `pattern` (`^\P{Cc}*$/u`): JSON Schema patterns are already Unicode, so the
 *   flags are dropped (an unescaped `/` can only be the delimiter: a slash inside a RegExp source is `\/`);
 * - Joi.any() is every type at once: written as no `type`, so array tools do not look for `items`;
 * - boolean schemas (`then: false`) become `{not: {}}` / `{}`, which every OpenAPI tool reads;
 * - a `required` name the same schema does not define gets an empty property, so the name is declared;
 * - `Joi.when()` with the same schema on both sides comes out as a `oneOf` of two equal schemas, which
 *   nothing can match exactly once: equal branches are merged.
 */
function tidy(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(tidy);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .filter(([name]) => !name.startsWith('/'))
          .map(([name, v]) => [name, tidy(v)]),
      );
      continue;
    }
    if (key === 'pattern' && typeof value === 'string') {
      out.pattern = value.replace(/(?<!\\)\/[dgimsuvy]*$/, '');
      continue;
    }
    if (key === 'type' && Array.isArray(value) && ANY_TYPE.every((t) => value.includes(t))) continue;
    if (SCHEMA_KEYWORDS.has(key) && typeof value === 'boolean') {
      out[key] = value ? {} : { not: {} };
      continue;
    }
    out[key] = tidy(value);
  }
  if (Array.isArray(out.oneOf)) {
    const branches = (out.oneOf as unknown[]).filter(
      (b, i, all) => all.findIndex((o) => same(o, b)) === i && !same(b, { not: {} }),
    );
    exclusiveOr(branches);
    if (branches.length === 1 && typeof branches[0] === 'object') {
      delete out.oneOf;
      for (const [k, v] of Object.entries(branches[0] as Record<string, unknown>)) out[k] ??= v;
    } else out.oneOf = branches;
  }
  // Joi.object() without keys takes any keys (an open map such as a plan's entitlements): say so.
  if (out.type === 'object' && same(out.properties, {}) && !out.patternProperties) {
    out.additionalProperties ??= true;
  }
  if (Array.isArray(out.required)) {
    const properties = (out.properties ?? {}) as Record<string, unknown>;
    const missing = (out.required as string[]).filter((name) => !(name in properties));
    if (missing.length > 0) {
      out.properties = { ...properties, ...Object.fromEntries(missing.map((name) => [name, {}])) };
    }
  }
  return out;
}

/**
 * `Joi.object().oxor(a, b)` ("at most one of") comes out as `oneOf: [has a, has b, not oneOf [has a, has b,
 * has both]]`. Inside that `not`, `anyOf` means the same (any two of those branches already make the outer
 * `oneOf` fail) and is what linters accept, so it is written so.
 */
function exclusiveOr(branches: unknown[]): void {
  const last = branches[branches.length - 1] as
    { not?: { oneOf?: unknown[]; anyOf?: unknown[] } } | undefined;
  const inner = last?.not?.oneOf;
  if (!last?.not || !inner) return;
  const requiredOnly = (b: unknown): boolean =>
    !!b && typeof b === 'object' && Object.keys(b).every((k) => k === 'required' || k === 'properties');
  const others = branches.slice(0, -1);
  if (!inner.every(requiredOnly) || !others.every((b) => inner.some((i) => same(i, b)))) return;
  last.not = { anyOf: inner };
}

export function jsonSchemaOf(schema: Joi.Schema): SchemaObject {
  return tidy(parseJoi(schema, 'open-api-3.1')) as SchemaObject;
}

function parametersOf(route: Route): Array<ParameterObject | Reference> {
  const out: Array<ParameterObject | Reference> = [];
  for (const [where, schema] of [
    ['path', route.request?.params],
    ['query', route.request?.query],
  ] as const) {
    if (!schema) continue;
    const json = jsonSchemaOf(schema);
    const required = new Set(json.required ?? []);
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  for (const name of route.headers ?? []) out.push(ref('parameters', name));
  out.push(ref('parameters', 'AcceptLanguage'), ref('parameters', 'RequestId'));
  return out;
}

function requestBodyOf(route: Route): RequestBodyObject | undefined {
  const body = route.request?.body;
  if (!body) return undefined;
  const schema = jsonSchemaOf(body);
  const types = route.request?.bodyTypes ?? ['application/json'];
  const example = route.request?.example ?? sampleOf(schema, components.schemas);
  return {
    required: true,
    content: Object.fromEntries(
      types.map((type) => [type, example === undefined ? { schema } : { schema, example }]),
    ),
  };
}

const responseOf = (doc: ResponseDoc): ResponseObject | Reference =>
  typeof doc === 'string' ? ref('responses', doc) : doc;

/** The plain refusal of each interface whose routes can answer 415. */
const REFUSED: Partial<Record<InterfaceName, string>> = {
  embed: 'EmbedError',
  storefront: 'StorefrontError',
  merchant: 'MerchantError',
};

function responsesOf(route: Route): OperationObject['responses'] {
  const iface = INTERFACES[route.interface];
  const standard: Record<number, ResponseDoc> = { ...(iface.common ?? {}) };
  // A body in a media type the route does not read (api/http/mount.ts).
  if (route.request?.body && MEDIA_CHECKED.has(route.interface)) standard[415] = REFUSED[route.interface]!;
  // Every request passes the input layer (api/middleware/storable-input.ts: NUL, bytes that are not UTF-8),
  // so every operation can answer 422, whether or not it declares schemas of its own.
  standard[422] = iface.invalid;
  if (iface.limited) standard[429] = iface.limited;
  standard[500] = `${iface.tag.name}InternalError`;
  standard[503] = `${iface.tag.name}DependencyUnavailable`;
  for (const status of route.omitStandard ?? []) delete standard[status];
  const all = { ...standard, ...route.responses };
  // A rate-limited route reports its tightest limit on every answer (api/middleware/rate-limit.ts).
  const limited = iface.limited !== undefined && all[429] !== undefined;
  return Object.fromEntries(
    Object.keys(all)
      .map(Number)
      .sort((a, b) => a - b)
      .map((status) => [String(status), withHeaders(responseOf(all[status]!), status, limited)]),
  );
}

/**
 * The headers every answer carries, added to the answers written in the declarations (the shared response
 * components list their own): `X-Request-Id` always, the rate-limit pair on rate-limited routes,
 * `Retry-After` on a 429 or 503.
 */
function withHeaders(
  response: ResponseObject | Reference,
  status: number,
  limited: boolean,
): ResponseObject | Reference {
  if ('$ref' in response) return response;
  const json = response.content?.['application/json'];
  if (status >= 200 && status < 300 && json?.schema && json.example === undefined) {
    // A 2xx answer always shows an example: the declaration's, else one made from its schema.
    response = {
      ...response,
      content: {
        ...response.content,
        'application/json': { ...json, example: sampleOf(json.schema, components.schemas) },
      },
    };
  }
  const headers: NonNullable<ResponseObject['headers']> = { ...response.headers };
  headers['X-Request-Id'] ??= ref('headers', 'X-Request-Id');
  if (limited) {
    headers['X-RateLimit-Limit'] ??= ref('headers', 'X-RateLimit-Limit');
    headers['X-RateLimit-Remaining'] ??= ref('headers', 'X-RateLimit-Remaining');
  }
  if (status === 429 || status === 503) headers['Retry-After'] ??= ref('headers', 'Retry-After');
  return { ...response, headers };
}

function operationOf(route: Route): OperationObject {
  const iface = INTERFACES[route.interface];
  const parameters = parametersOf(route);
  const requestBody = requestBodyOf(route);
  return {
    tags: [iface.tag.name],
    summary: route.summary,
    // Tools ask for a description on every operation; the summary says it all where none is written.
    description: route.description ?? route.summary,
    operationId: route.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: responsesOf(route),
    security: route.security ?? iface.security,
  };
}

/**
 * Builds the whole document. Two declarations of one operation, or one operationId used twice, are a
 * programming error and throw (the suite builds the document, so they never reach a deployment).
 */
export function buildOpenApiDocument(routes: readonly Route[], options: DocumentOptions): OpenApiDocument {
  const paths: Record<string, PathItemObject> = {};
  const operationIds = new Set<string>();
  const used = new Set<InterfaceName>();
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    if (item[route.method])
      throw new Error(`OpenAPI: ${route.method.toUpperCase()} ${route.path} is declared twice`);
    if (operationIds.has(route.operationId))
      throw new Error(`OpenAPI: operationId ${route.operationId} is used twice`);
    operationIds.add(route.operationId);
    item[route.method] = operationOf(route);
    used.add(route.interface);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Matjar Commerce Platform API',
      version: options.version ?? '0.1.0',
      description:
        'Every interface of the platform, served on one port and told apart by path prefix: Embed (/api/embed), ' +
        'Storefront (/api), Analytics (/api/storefront/analytics), Merchant (/shawarma), License (/verify) and ' +
        'FiveM (/api/fivem), plus the operational routes. Each interface answers in its own envelope.',
      contact: { name: 'Matjar platform team', url: `${options.publicBaseUrl}/docs` },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: options.publicBaseUrl, description: 'PUBLIC_BASE_URL of this deployment' }],
    tags: [
      ...(Object.keys(INTERFACES) as InterfaceName[])
        .filter((n) => used.has(n))
        .map((n) => INTERFACES[n].tag),
      WEBHOOKS_TAG,
    ],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    webhooks: webhooksSection(WEBHOOKS_TAG.name),
    components: componentsWithRequestId(),
  };
}

/** The `webhooks` section's tag: what the platform sends, rather than answers. */
const WEBHOOKS_TAG = {
  name: 'Merchant webhooks',
  description:
    'Events the platform POSTs to a store’s webhook endpoints (POST /shawarma/webhooks), signed with the ' +
    'endpoint’s secret: docs/webhooks.md.',
};

/** The shared response components, each with the `X-Request-Id` every answer carries. */
function componentsWithRequestId(): OpenApiDocument['components'] {
  const responses = Object.fromEntries(
    Object.entries(components.responses).map(([name, response]) => [
      name,
      {
        ...response,
        headers: { 'X-Request-Id': ref('headers', 'X-Request-Id'), ...response.headers },
      },
    ]),
  );
  return { ...components, schemas: { ...components.schemas, ...webhookEventSchemas() }, responses };
}
