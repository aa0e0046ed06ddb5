import { expect } from 'chai';
import { sharedDeps } from '../helpers/deps';
import { startServer, type TestServer } from '../helpers/http';

const ARABIC = /[\u0600-\u06FF]/;

interface Doc {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  components: { schemas: unknown; responses: Record<string, unknown> };
}

/** Every `message` of an example object under `node`, with where it was found. */
function exampleMessages(node: unknown, where: string, inExample = false, out: [string, string][] = []) {
  if (!node || typeof node !== 'object') return out;
  const obj = node as Record<string, unknown>;
  if (inExample && typeof obj.message === 'string') out.push([where, obj.message]);
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'schema') continue;
    exampleMessages(value, `${where}.${key}`, inExample || key === 'example' || key === 'value', out);
  }
  return out;
}

/** The error answers' example messages of the paths under `prefix`, and of the shared answers. */
function errorMessages(doc: Doc, prefix: string): [string, string][] {
  const out: [string, string][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith(prefix)) continue;
    for (const [method, op] of Object.entries(item)) {
      for (const [status, answer] of Object.entries(op.responses ?? {})) {
        if (/^[45]/.test(status)) exampleMessages(answer, `${method} ${path} ${status}`, false, out);
      }
    }
  }
  return out;
}

/**
 * The API docs in the reader's language (docs/errors.md, "Languages"): /openapi.json answers an Arabic
 * reader (`Accept-Language: ar` or `?lang=ar`) with the error examples' messages in Arabic, as the Embed
 * and Storefront APIs answer such a request; the rest of the document is the English one.
 */
describe('the OpenAPI document’s error examples in the reader’s language', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startServer(await sharedDeps());
  });
  after(() => server.close());

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await server.request(path, { headers });
    expect(res.status).to.equal(200);
    return { res, doc: JSON.parse(res.text) as Doc };
  };

  it('answers English examples by default and Arabic ones to Accept-Language: ar or ?lang=ar', async () => {
    const english = await get('/openapi.json');
    const unauth = (d: Doc) =>
      (
        d.components.responses.EmbedUnauthenticated as {
          content: Record<string, { example: { message: string } }>;
        }
      ).content['application/json']!.example.message;
    expect(unauth(english.doc)).to.equal('Invalid embed key');
    expect(english.res.headers.get('content-language')).to.equal('en');
    expect(english.res.headers.get('vary')).to.match(/Accept-Language/i);

    const arabic = await get('/openapi.json', { 'Accept-Language': 'ar-SA,ar;q=0.9,en;q=0.5' });
    expect(unauth(arabic.doc)).to.equal('مفتاح التضمين غير صحيح');
    expect(arabic.res.headers.get('content-language')).to.equal('ar');
    expect(unauth((await get('/openapi.json?lang=ar')).doc)).to.equal('مفتاح التضمين غير صحيح');
    // The address's choice wins over the header.
    expect(unauth((await get('/openapi.json?lang=en', { 'Accept-Language': 'ar' })).doc)).to.equal(
      'Invalid embed key',
    );
    // Only the messages differ: the schemas and the paths are the English document's.
    expect(arabic.doc.components.schemas).to.deep.equal(english.doc.components.schemas);
    expect(Object.keys(arabic.doc.paths)).to.deep.equal(Object.keys(english.doc.paths));
  });

  it('has every Embed and Storefront error example, and every shared error answer, in Arabic', async () => {
    const { doc } = await get('/openapi.json', { 'Accept-Language': 'ar' });
    const english = (await get('/openapi.json')).doc;
    // The Embed API (/api/embed/...) and the Storefront API (the other /api/... paths).
    for (const prefix of ['/api/embed', '/api/']) {
      const messages = errorMessages(doc, prefix);
      expect(messages.length, prefix).to.be.greaterThan(5);
      const left = messages.filter(([, m]) => !ARABIC.test(m));
      expect(left, prefix).to.deep.equal([]);
      // They were English before: the translation is this document's, not the declarations'.
      expect(errorMessages(english, prefix).every(([, m]) => !ARABIC.test(m))).to.equal(true);
    }
    const shared = exampleMessages(doc.components.responses, 'components.responses');
    expect(shared.length).to.be.greaterThan(3);
    expect(shared.filter(([, m]) => !ARABIC.test(m))).to.deep.equal([]);
  });

  it('the docs page asks for the document in the language of its address (/docs?lang=ar)', async () => {
    const init = await server.request('/docs/assets/init.js');
    expect(init.status).to.equal(200);
    expect(init.text).to.contain("'/openapi.json' + (lang === 'ar' || lang === 'en' ? '?lang=' + lang : '')");
  });
});
