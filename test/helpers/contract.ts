import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { buildOpenApiDocument } from '../../api/http/openapi';
import type { OpenApiDocument, Reference, ResponseObject } from '../../api/openapi/types';
import { allRoutes } from '../../api/routes';
import type { Config } from '../../shared/config';

/**
 * Checks every answer a test receives against the OpenAPI document generated from the route
 * declarations: its status must be documented for the operation, and a JSON body must match that
 * status's schema. test/helpers/http.ts runs it on every request, so the document cannot drift from what
 * the API does without a test failing.
 */

const DOC_ID = 'https://matjar.invalid/openapi.json';

interface Operation {
  method: string;
  path: string;
  pattern: RegExp;
  params: number;
  responses: Record<string, ResponseObject | Reference>;
}

type Compiled = { doc: OpenApiDocument; ajv: Ajv2020; operations: Operation[] };
/** One document per NODE_ENV: production mounts fewer routes (no /__dev). */
const compiled = new Map<string, Compiled>();
const validators = new Map<Ajv2020, Map<string, ValidateFunction>>();

function load(nodeEnv: Config['nodeEnv']): Compiled {
  const cached = compiled.get(nodeEnv);
  if (cached) return cached;
  const doc = buildOpenApiDocument(allRoutes({ nodeEnv }), { publicBaseUrl: 'http://localhost' });
  // The document is registered whole, so `#/components/...` references resolve against it.
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID } as object);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      operations.push({
        method: method.toUpperCase(),
        path,
        pattern: new RegExp(`^${source.replace(/\{\w+\}/g, '[^/]+')}$`),
        params: (path.match(/\{/g) ?? []).length,
        responses: operation.responses,
      });
    }
  }
  // The most literal path wins where several match.
  operations.sort((a, b) => a.params - b.params);
  const result = { doc, ajv, operations };
  compiled.set(nodeEnv, result);
  return result;
}

const pointer = (...parts: string[]): string =>
  '#/' + parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Where the schema of (operation, status, JSON) lives in the document, following a response $ref. */
function schemaPointer(op: Operation, status: string, doc: OpenApiDocument): string | null {
  const response = op.responses[status];
  if (!response) return null;
  if ('$ref' in response) {
    const name = response.$ref.replace('#/components/responses/', '');
    const target = doc.components.responses[name];
    if (!target?.content?.['application/json']?.schema) return '';
    return pointer('components', 'responses', name, 'content', 'application/json', 'schema');
  }
  if (!response.content?.['application/json']?.schema) return '';
  return pointer(
    'paths',
    op.path,
    op.method.toLowerCase(),
    'responses',
    status,
    'content',
    'application/json',
    'schema',
  );
}

export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractViolation';
  }
}

/**
 * Throws a ContractViolation when the answer is not what the document says. Requests to no documented
 * operation (an unknown path, a method the path lacks, a preflight) are not checked: there is nothing to
 * hold them to.
 */
export function checkAnswer(
  nodeEnv: Config['nodeEnv'],
  method: string,
  url: string,
  status: number,
  contentType: string | null,
  text: string,
): void {
  const { doc, ajv, operations } = load(nodeEnv);
  const path = new URL(url, 'http://localhost').pathname;
  const op = operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(path));
  if (!op) return;
  const where = `${op.method} ${op.path} answered ${status}`;
  const at = schemaPointer(op, String(status), doc);
  if (at === null) {
    throw new ContractViolation(
      `${where}, a status the OpenAPI document does not list for it (${Object.keys(op.responses).join(', ')})`,
    );
  }
  if (!contentType?.includes('json')) return;
  if (at === '') {
    // A server error is always the interface's JSON envelope (api/envelopes.ts); a document that gives the
    // status only in another media type (or none) describes an answer that is never sent.
    if (status >= 500)
      throw new ContractViolation(`${where} with a JSON body the document does not describe`);
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContractViolation(`${where} with a body that is not JSON`);
  }
  const cache = validators.get(ajv) ?? new Map<string, ValidateFunction>();
  validators.set(ajv, cache);
  let validate = cache.get(at);
  if (!validate) {
    validate = ajv.getSchema(`${DOC_ID}${at}`);
    if (!validate) throw new ContractViolation(`${where}: no schema at ${at}`);
    cache.set(at, validate);
  }
  if (!validate(body)) {
    throw new ContractViolation(
      `${where} with a body the document does not allow: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
    );
  }
}

/**
 * Throws a ContractViolation when a merchant webhook delivery body is not what the document's `webhooks`
 * section declares for its `type` (api/openapi/webhooks.ts), or names an event the section lacks.
 */
export function checkWebhookEvent(nodeEnv: Config['nodeEnv'], text: string): void {
  const { doc, ajv } = load(nodeEnv);
  const body = JSON.parse(text) as { type?: unknown };
  const type = String(body.type);
  if (!doc.webhooks[type]?.post) throw new ContractViolation(`webhook event ${type} is not in the document`);
  const at = pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema');
  const cache = validators.get(ajv) ?? new Map<string, ValidateFunction>();
  validators.set(ajv, cache);
  const validate = cache.get(at) ?? ajv.getSchema(`${DOC_ID}${at}`);
  if (!validate) throw new ContractViolation(`webhook event ${type}: no schema at ${at}`);
  cache.set(at, validate);
  if (!validate(body)) {
    throw new ContractViolation(
      `webhook event ${type} with a body the document does not allow: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
    );
  }
}

/**
 * Throws a ContractViolation when `body` is not allowed by the document's schema `name`
 * (`#/components/schemas/{name}`): for answers to paths no operation documents (an unknown path), which
 * still carry their interface's error envelope.
 */
export function checkSchema(nodeEnv: Config['nodeEnv'], name: string, body: unknown): void {
  const { doc, ajv } = load(nodeEnv);
  if (!doc.components.schemas[name]) throw new ContractViolation(`no schema ${name} in the document`);
  const at = pointer('components', 'schemas', name);
  const cache = validators.get(ajv) ?? new Map<string, ValidateFunction>();
  validators.set(ajv, cache);
  const validate = cache.get(at) ?? ajv.getSchema(`${DOC_ID}${at}`);
  if (!validate) throw new ContractViolation(`no schema at ${at}`);
  cache.set(at, validate);
  if (!validate(body)) {
    throw new ContractViolation(
      `a body schema ${name} does not allow: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    );
  }
}
