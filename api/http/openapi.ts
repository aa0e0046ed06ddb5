import type Joi from 'joi';
import parseJoi from 'joi-to-json';
import { components, ref } from '../openapi/components';
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

/**
 * joi-to-json writes what joi enforces; two things are adjusted for the document. Unknown keys are
 * stripped by the validator rather than refused, so objects do not say `additionalProperties: false`;
 * and `Joi.object().pattern()` appears only as `patternProperties` (not also as a literal property).
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
    out[key] = tidy(value);
  }
  return out;
}

export function jsonSchemaOf(schema: Joi.Schema): SchemaObject {
  return tidy(parseJoi(schema, 'open-api-3.1')) as SchemaObject;
}

function parametersOf(route: Route): ParameterObject[] {
  const out: ParameterObject[] = [];
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
  return out;
}

function requestBodyOf(route: Route): RequestBodyObject | undefined {
  const body = route.request?.body;
  if (!body) return undefined;
  const schema = jsonSchemaOf(body);
  const types = route.request?.bodyTypes ?? ['application/json'];
  const example = route.request?.example;
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
  standard[500] = 'InternalError';
  standard[503] = 'Unavailable';
  for (const status of route.omitStandard ?? []) delete standard[status];
  const all = { ...standard, ...route.responses };
  return Object.fromEntries(
    Object.keys(all)
      .map(Number)
      .sort((a, b) => a - b)
      .map((status) => [String(status), responseOf(all[status]!)]),
  );
}

function operationOf(route: Route): OperationObject {
  const iface = INTERFACES[route.interface];
  const parameters = parametersOf(route);
  const requestBody = requestBodyOf(route);
  return {
    tags: [iface.tag.name],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
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
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: options.publicBaseUrl, description: 'PUBLIC_BASE_URL of this deployment' }],
    tags: (Object.keys(INTERFACES) as InterfaceName[])
      .filter((n) => used.has(n))
      .map((n) => INTERFACES[n].tag),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components,
  };
}
