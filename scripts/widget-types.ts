import fs from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import { buildOpenApiDocument } from '../api/http/openapi';
import { allRoutes } from '../api/routes';

/**
 * Writes widget/src/embed-types.ts: the TypeScript types of the Embed API answers the widget reads, made
 * from the OpenAPI document the API serves (/openapi.json). The widget never imports api/ or shared/, so
 * this file is its only knowledge of the API's shapes; test/unit/widget-types.test.ts fails when the
 * committed file no longer matches the document (run `npx tsx scripts/widget-types.ts` to refresh it).
 */

type Schema = { [key: string]: unknown };
type Response = { $ref?: string; content?: Record<string, { schema?: Schema }> };
type Doc = {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema>; responses?: Record<string, Response> };
};

export const TYPES_FILE = path.resolve(__dirname, '..', 'widget', 'src', 'embed-types.ts');

/** The operations the widget calls, in the order they appear in the file. */
export const WIDGET_OPERATIONS = [
  'GET /api/embed/product/{productId}',
  'POST /api/embed/auth/start',
  'POST /api/embed/auth/resend',
  'POST /api/embed/auth/verify',
  'POST /api/embed/auth/complete',
  'POST /api/embed/auth/validate',
  'POST /api/embed/apply-coupon',
  'POST /api/embed/checkout',
  'POST /api/embed/guest/checkout',
  'POST /api/embed/payment/initiate',
  'POST /api/embed/guest/payment/initiate',
  'GET /api/embed/payment/status/{checkoutUrl}',
  'POST /api/embed/order/reveal',
] as const;

/** The operation whose error answer gives the type of every Embed error body (it has every extra field). */
const ERROR_SOURCE = { operation: 'POST /api/embed/auth/verify', status: '400' };

function resolve(doc: Doc, schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  const found = doc.components?.schemas?.[name];
  if (!found) throw new Error(`unresolvable ${ref}`);
  return resolve(doc, found);
}

function jsonSchemaOf(doc: Doc, operation: string, status: string): Schema {
  const [method, route] = operation.split(' ');
  const op = doc.paths[route]?.[method.toLowerCase()] as { responses?: Record<string, Response> } | undefined;
  let response = op?.responses?.[status];
  if (response?.$ref)
    response = doc.components?.responses?.[response.$ref.replace('#/components/responses/', '')];
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`the document has no JSON ${status} answer for ${operation}`);
  return schema;
}

/** The `data` member of a success envelope, however the envelope is composed (allOf or plain). */
function dataOf(doc: Doc, envelope: Schema): Schema {
  const s = resolve(doc, envelope);
  const props = s.properties as Record<string, Schema> | undefined;
  if (props?.data && Object.keys(props.data).length > 0) return props.data;
  for (const part of (s.allOf as Schema[] | undefined) ?? []) {
    try {
      return dataOf(doc, part);
    } catch {
      // another part of the composition holds it
    }
  }
  throw new Error('success envelope without a data schema');
}

const key = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

function toTs(doc: Doc, input: Schema, depth: number): string {
  const s = resolve(doc, input);
  const pad = '  '.repeat(depth);
  if (Array.isArray(s.allOf)) return (s.allOf as Schema[]).map((p) => toTs(doc, p, depth)).join(' & ');
  const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
  if (Array.isArray(alternatives)) return `(${alternatives.map((p) => toTs(doc, p, depth)).join(' | ')})`;
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const types: string[] = Array.isArray(s.type)
    ? (s.type as string[])
    : typeof s.type === 'string'
      ? [s.type]
      : s.properties
        ? ['object']
        : [];
  if (types.length === 0) return 'unknown';
  const one = (type: string): string => {
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return `Array<${s.items ? toTs(doc, s.items as Schema, depth) : 'unknown'}>`;
      case 'object': {
        const props = s.properties as Record<string, Schema> | undefined;
        if (!props) {
          const extra = s.additionalProperties;
          return `Record<string, ${extra && typeof extra === 'object' ? toTs(doc, extra as Schema, depth) : 'unknown'}>`;
        }
        const required = new Set((s.required as string[] | undefined) ?? []);
        const lines = Object.entries(props).map(
          ([name, p]) => `${pad}  ${key(name)}${required.has(name) ? '' : '?'}: ${toTs(doc, p, depth + 1)};`,
        );
        return `{\n${lines.join('\n')}\n${pad}}`;
      }
      default:
        return 'unknown';
    }
  };
  return types.map(one).join(' | ');
}

/** The file's text, formatted as the project's Prettier settings want it. */
export async function generateEmbedTypes(doc: Doc): Promise<string> {
  const entries = WIDGET_OPERATIONS.map(
    (op) => `  ${JSON.stringify(op)}: ${toTs(doc, dataOf(doc, jsonSchemaOf(doc, op, '200')), 1)};`,
  );
  const error = toTs(doc, jsonSchemaOf(doc, ERROR_SOURCE.operation, ERROR_SOURCE.status), 0);
  const text = [
    '// Generated by scripts/widget-types.ts from the OpenAPI document (/openapi.json). Do not edit by hand:',
    '// run `npx tsx scripts/widget-types.ts` after an Embed API change; a test fails while this file is stale.',
    '',
    '/** The `data` of each Embed API success answer the widget reads, by operation. */',
    'export interface EmbedAnswers {',
    ...entries,
    '}',
    '',
    '/** An Embed API error body. */',
    `export type EmbedErrorBody = ${error};`,
    '',
  ].join('\n');
  const options = (await prettier.resolveConfig(TYPES_FILE)) ?? {};
  return prettier.format(text, { ...options, parser: 'typescript' });
}

export function currentDocument(): Doc {
  return buildOpenApiDocument(allRoutes({ nodeEnv: 'production' }), {
    publicBaseUrl: 'http://localhost',
  }) as unknown as Doc;
}

if (require.main === module) {
  void generateEmbedTypes(currentDocument()).then((text) => {
    fs.writeFileSync(TYPES_FILE, text);
    process.stdout.write(`wrote ${path.relative(process.cwd(), TYPES_FILE)}\n`);
  });
}
