import http from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { interfaceFor, InterfaceName } from '../../../api/interfaces';
import type { Deps } from '../../../shared/deps';
import {
  createCustomer,
  createPaymentMethod,
  createProduct,
  createStore,
  customerToken,
  merchantToken,
} from '../../helpers/builders';
import { isolatedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

/**
 * Every operation of the OpenAPI document, fed generated bad values (fast-check, fixed seed),
 * answers no 5xx and, for every refusal, the interface's envelope. The operations, their parameters and
 * their request bodies are read from /openapi.json, so a route added later is fuzzed without touching
 * this file. Requests go out raw (node:http), so bodies can be bytes that are not UTF-8 and content types
 * can be wrong.
 */

const SEED = 20261123;
/** The run's budget: at least this many requests in all, spread over however many operations there are. */
const TOTAL = 2_100;
/** But never fewer than this per operation, however many routes are added. */
const MIN_PER_OPERATION = 24;
const CONCURRENCY = 6;

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: { types: string[]; schema?: Schema };
}
interface Doc {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }
    >
  >;
  components: { schemas?: Record<string, Schema> };
}

/** A request as sent: raw path (already percent-encoded where it should be), headers, raw body bytes. */
interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  label: string;
}

// ------------------------------------------------------------------------------------------ generators

const nul = fc.string({ maxLength: 8 }).map((s) => `${s}\u0000${s}`);
const overlong = fc.integer({ min: 1_000, max: 120_000 }).map((n) => 'x'.repeat(n));
const hugeNumber = fc.constantFrom(
  2 ** 31,
  2 ** 31 - 1,
  2 ** 32,
  2 ** 53,
  Number.MAX_SAFE_INTEGER + 2,
  1e21,
  1e308,
);
const negative = fc.oneof(
  fc.integer({ min: -(2 ** 40), max: -1 }),
  fc.constant(-0),
  fc.constant(-(2 ** 31) - 1),
);
const fractional = fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((n) => !Number.isInteger(n));
const numericString = fc.constantFrom(
  '1',
  '0',
  '-1',
  '1.5',
  '1e309',
  '2147483648',
  '9999999999999999999',
  ' 7 ',
  '0x10',
  'NaN',
  'Infinity',
);
const deep = fc.integer({ min: 20, max: 3_000 }).map((depth) => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) v = i % 2 ? [v] : { a: v };
  return v;
});
const oddStrings = fc.constantFrom(
  '',
  ' ',
  '\t\n',
  '🙂',
  '\u202e',
  "' or 1=1 --",
  '<script>',
  '../../etc/passwd',
  '%00',
  '\\u0000',
  '\ud800',
);

/** A bad value for any field: NUL, overlong, huge, negative, fractional, numeric strings, odd strings, wrong types, nesting. */
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  nul,
  overlong,
  hugeNumber,
  negative,
  fractional,
  numericString,
  oddStrings,
  fc.constantFrom(true, false, null, [], {}, [1, 2], { $gt: '' }, { nested: { x: 1 } }),
  fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  deep.filter(() => true),
  fc.string({ maxLength: 40 }),
  fc.integer(),
);

/** A bad value as it can travel in a URL: path segments and query values. */
const badUrlValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    'a%00b',
    '%FF',
    '%C3%28',
    '%ED%A0%80',
    '%E2%82',
    '%25',
    '..',
    '%2F..%2F',
    '-1',
    '0',
    '1.5',
    '2147483648',
    '99999999999999999999',
    'null',
    'undefined',
    '%20',
    '1e5',
  ),
  fc.integer({ min: 200, max: 5_000 }).map((n) => 'y'.repeat(n)),
  fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)),
  fc.string({ maxLength: 10 }).map((s) => `${encodeURIComponent(s)}%00`),
);

// ------------------------------------------------------------------------------------------ the test

describe('fuzz: every operation of the OpenAPI document, bad values only', function () {
  this.timeout(120_000);
  let deps: Deps;
  let server: TestServer;
  let doc: Doc;
  let operations: Operation[];
  const credentials: Record<string, string> = {};

  before(async () => {
    deps = await isolatedDeps({
      TRUST_PROXY: '1',
      RATE_LIMITS: 'off',
      DASHBOARD_USER: 'ops',
      DASHBOARD_PASSWORD: 'fuzz-password-0001',
    });
    server = await startServer(deps);
    const store = await createStore({ domains: ['fuzz.localhost'] });
    await createPaymentMethod(store, { method: 'card', provider: 'sandbox' });
    const product = await createProduct(store);
    const customer = await createCustomer(store);
    credentials.embedKey = store.embed_key;
    credentials.productId = String(product.id);
    credentials.embedToken = await customerToken(customer, 'embed');
    credentials.storefrontToken = await customerToken(customer, 'storefront');
    credentials.merchantToken = await merchantToken(store);
    doc = (await server.request('/openapi.json')).body as unknown as Doc;
    operations = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object') continue;
        const content = op.requestBody?.content;
        operations.push({
          method: method.toUpperCase(),
          path,
          parameters: op.parameters ?? [],
          body: content
            ? { types: Object.keys(content), schema: content['application/json']?.schema }
            : undefined,
        });
      }
    }
  });
  after(() => server.close());

  const resolve = (schema: Schema | undefined): Schema | undefined => {
    let s = schema;
    for (let i = 0; i < 5 && s?.$ref; i += 1) s = doc.components.schemas?.[s.$ref.split('/').pop() ?? ''];
    return s;
  };

  /** A value the field might accept, so requests also reach past the first check. */
  function plausible(schema: Schema | undefined): fc.Arbitrary<unknown> {
    const s = resolve(schema);
    const type = Array.isArray(s?.type)
      ? s?.type[0]
      : (s?.type ?? s?.anyOf?.[0]?.type ?? s?.oneOf?.[0]?.type);
    if (s?.enum?.length) return fc.constantFrom(...s.enum);
    switch (type) {
      case 'integer':
      case 'number':
        return fc.constantFrom(Number(credentials.productId), 1, 2);
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(plausible(s?.items), { maxLength: 3 });
      case 'object':
        return bodyFor(s);
      default:
        return fc.constantFrom(
          '966',
          '999',
          '+966',
          '500000001',
          'abc',
          'sara@example.com',
          'card',
          credentials.productId,
        );
    }
  }

  /** A body for an object schema: each known field bad, plausible or left out, plus unknown fields. */
  function bodyFor(schema: Schema | undefined): fc.Arbitrary<Record<string, unknown>> {
    const props = resolve(schema)?.properties ?? {};
    const fields = Object.fromEntries(
      Object.entries(props).map(([name, prop]) => [
        name,
        fc.option(fc.oneof({ weight: 3, arbitrary: badValue }, { weight: 2, arbitrary: plausible(prop) }), {
          nil: undefined,
        }),
      ]),
    );
    return fc
      .record({
        known: fc.record(fields),
        extra: fc.dictionary(fc.string({ maxLength: 6 }), badValue, { maxKeys: 1, size: 'xsmall' }),
      })
      .map(({ known, extra }) => {
        const out: Record<string, unknown> = { ...extra };
        for (const [k, v] of Object.entries(known)) if (v !== undefined) out[k] = v;
        return out;
      });
  }

  /** Raw bytes of a body: JSON, a JSON body whose text carries bytes that are not UTF-8, or garbage. */
  function bodyBytes(op: Operation): fc.Arbitrary<{ body?: Buffer; type?: string }> {
    const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v) ?? 'null');
    const object = bodyFor(op.body?.schema);
    return fc.oneof(
      { weight: 6, arbitrary: object.map((o) => ({ body: json(o), type: 'application/json' })) },
      {
        weight: 2,
        arbitrary: object.map((o) => ({
          body: Buffer.concat([
            Buffer.from(JSON.stringify(o).slice(0, -1) + ',"z":"'),
            Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
            Buffer.from('"}'),
          ]),
          type: 'application/json',
        })),
      },
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.constant({ body: Buffer.alloc(0), type: 'application/json' }),
          fc.constant({ body: undefined, type: undefined }),
          fc
            .constantFrom('{', '{"a":', 'not json', '[1,2', 'null', '42', '"str"', '[]', 'true')
            .map((t) => ({ body: Buffer.from(t), type: 'application/json' })),
          deep.map((d) => ({ body: json({ deep: d }), type: 'application/json' })),
        ),
      },
      {
        weight: 2,
        arbitrary: fc.oneof(
          object.map((o) => ({ body: json(o), type: 'text/plain' })),
          object.map((o) => ({ body: json(o), type: 'application/xml' })),
          fc.constant({
            body: Buffer.from('--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n\u0000\r\n--x--\r\n'),
            type: 'multipart/form-data; boundary=x',
          }),
          fc.constant({ body: Buffer.from('garbage without a boundary'), type: 'multipart/form-data' }),
          object.map((o) => ({
            body: Buffer.from(
              new URLSearchParams(
                Object.entries(o).map(([k, v]): [string, string] => [
                  k,
                  typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
                ]),
              ).toString(),
            ),
            type: 'application/x-www-form-urlencoded',
          })),
          fc.constant({
            body: Buffer.from('a=%00&b=%FF&c[d][e][f][g][h][i][j][k]=1'),
            type: 'application/x-www-form-urlencoded',
          }),
        ),
      },
    );
  }

  function credentialsFor(iface: InterfaceName): fc.Arbitrary<Record<string, string>> {
    const byInterface: Record<string, Record<string, string>> = {
      embed: { 'X-Embed-Key': credentials.embedKey, Authorization: `Bearer ${credentials.embedToken}` },
      storefront: { Host: 'fuzz.localhost', Authorization: `Bearer ${credentials.storefrontToken}` },
      analytics: { Host: 'fuzz.localhost' },
      merchant: { Authorization: `Bearer ${credentials.merchantToken}` },
      fivem: { 'X-FiveM-Secret': 'fivem-fuzz-secret-0001' },
      platform: { Authorization: `Basic ${Buffer.from('ops:fuzz-password-0001').toString('base64')}` },
    };
    const good = byInterface[iface] ?? {};
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant(good) },
      { weight: 1, arbitrary: fc.constant<Record<string, string>>({}) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Record<string, string>>(
          { Authorization: 'Bearer \u00ff\u00fe' },
          { Authorization: 'Bearer ' + 'z'.repeat(4000) },
          { 'X-Embed-Key': 'emb_pk_' + 'q'.repeat(300) },
          { Origin: 'null' },
        ),
      },
    );
  }

  function requestsFor(op: Operation): fc.Arbitrary<FuzzRequest> {
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const sendsBody = op.method !== 'GET' && op.method !== 'HEAD';
    return fc
      .record({
        path: fc.tuple(
          ...pathParams.map(() =>
            fc.oneof(
              { weight: 3, arbitrary: badUrlValue },
              { weight: 1, arbitrary: fc.constant(credentials.productId) },
            ),
          ),
        ),
        query: fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom(...queryParams.map((p) => p.name), 'embed_key', 'page', 'per_page'),
              fc.string({ maxLength: 5 }).map(encodeURIComponent),
              fc.constantFrom('a%zz', '%', '%E2%82', '%00'),
            ),
            badUrlValue,
          ),
          { maxLength: 2, size: 'xsmall' },
        ),
        headers: credentialsFor(interfaceFor(op.path)),
        body: sendsBody ? bodyBytes(op) : fc.constant({ body: undefined, type: undefined }),
      })
      .map(({ path, query, headers, body }) => {
        let i = 0;
        const filled = op.path.replace(/\{[^}]+\}/g, () => path[i++] ?? 'x');
        const qs = query.map(([k, v]) => `${k}=${v}`).join('&');
        const all: Record<string, string> = { 'X-Forwarded-For': '127.0.0.1', ...headers };
        if (body.type) all['Content-Type'] = body.type;
        return {
          method: op.method,
          path: qs ? `${filled}?${qs}` : filled,
          headers: all,
          body: body.body,
          label: `${op.method} ${op.path}`,
        };
      });
  }

  it(`answers ${TOTAL}+ generated bad requests over every operation with no 5xx, refusals in the interface's envelope`, async () => {
    expect(operations.length, 'operations in the document').to.be.at.least(20);
    const perOperation = Math.max(Math.ceil(TOTAL / operations.length), MIN_PER_OPERATION);
    const requests = operations.flatMap((op, i) =>
      fc.sample(requestsFor(op), { seed: SEED + i, numRuns: perOperation }),
    );
    expect(requests.length).to.be.at.least(2_000);

    const problems: string[] = [];
    const statuses = new Map<number, number>();
    const byOp: Record<string, string> = {};
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const req = requests[next++];
        const res = await send(server.url, req);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        byOp[req.label] = `${byOp[req.label] ?? ''} ${res.status}`;
        const problem = judge(req, res);
        if (problem && problems.length < 20) problems.push(problem);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (process.env.FUZZ_REPORT) console.log(JSON.stringify(Object.fromEntries(statuses)), byOp);
    expect(problems, `answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`).to.deep.equal([]);
    expect([...statuses.keys()].filter((s) => s >= 500)).to.deep.equal([]);
  });
});

interface RawResponse {
  status: number;
  type: string;
  text: string;
}

function send(base: string, req: FuzzRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body) headers['Content-Length'] = String(req.body.length);
    const out = http.request(`${base}${req.path}`, { method: req.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(req.body);
  });
}

/** What is wrong with an answer, or null: no 5xx, and a refusal in its interface's envelope. */
function judge(req: FuzzRequest, res: RawResponse): string | null {
  const where = `${req.label} (${req.method} ${req.path.slice(0, 120)}) answered ${res.status}`;
  if (res.status >= 500) return `${where}: ${res.text.slice(0, 300)}`;
  if (res.status < 400) return null;
  const iface = interfaceFor(req.path.split('?')[0]);
  // HTML pages (payment pages, the sandbox) answer their refusals as pages of their own.
  if (iface === 'platform' && res.type.startsWith('text/html')) return null;
  if (!res.type.includes('json'))
    return `${where} with ${res.type || 'no content type'}: ${res.text.slice(0, 200)}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text) as Record<string, unknown>;
  } catch {
    return `${where} with a body that is not JSON`;
  }
  const ok = envelopeOk(iface, res.status, body);
  return ok ? null : `${where} outside the ${iface} envelope: ${res.text.slice(0, 300)}`;
}

function envelopeOk(iface: InterfaceName, status: number, body: Record<string, unknown>): boolean {
  const message = typeof body.message === 'string';
  const errorsOk =
    status !== 422 || (typeof body.errors === 'object' && body.errors !== null) || iface === 'platform';
  const messageOnly429 = status === 429 && message && Object.keys(body).length === 1;
  switch (iface) {
    case 'embed':
      return body.success === false && message && errorsOk;
    case 'storefront':
      return messageOnly429 || (body.success === false && body.data === null && message && errorsOk);
    case 'analytics':
      return typeof body.error_code === 'string' && typeof body.doc_url === 'string' && message;
    case 'merchant':
      return (
        messageOnly429 || (body.error === true && body.api === 'merchant' && body.data === null && message)
      );
    case 'license':
      return messageOnly429 || (body.success === false && message);
    case 'fivem':
      return body.success === false && typeof body.error_code === 'string' && message;
    default:
      return typeof body.error_code === 'string' && typeof body.doc_url === 'string' && message;
  }
}
