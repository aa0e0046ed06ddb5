import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { REFUSAL_CODE } from '../../api/downloads/messages';
import { LICENSE_ERROR_CODES, SPEC_EMBED_ERROR_CODES } from '../../api/envelopes';
import { buildOpenApiDocument } from '../../api/http/openapi';
import { allRoutes } from '../../api/routes';
import { DEFAULT_ERROR_CODE, ERROR_CODES } from '../../shared/error-codes';
import { ERROR_MESSAGES_AR } from '../../shared/i18n/buyer-messages';

/** Every `enum` under an `error_code` property anywhere in `node`, each with where it was found. */
function documentedCodes(node: unknown, at: string, out: Map<string, string[]>): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => documentedCodes(item, `${at}/${i}`, out));
    return;
  }
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'error_code' && value && typeof value === 'object' && 'type' in value) {
      out.set(at, (value as { enum?: string[] }).enum ?? []);
    }
    if (key !== 'example' && key !== 'examples') documentedCodes(value, `${at}/${key}`, out);
  }
}

describe('error codes', () => {
  const doc = readFileSync(path.join(__dirname, '../../docs/errors.md'), 'utf8');
  // A table's rows, not its heading (`error_code`).
  const listed = new Set(
    [...doc.matchAll(/^\|\s*`([A-Za-z_]+)`\s*\|/gm)].map((m) => m[1]).filter((c) => c !== 'error_code'),
  );
  /** What api/envelopes.ts can put in `error_code`, on any interface, and the download refusals. */
  const sendable = new Set<string>([
    ...Object.values(ERROR_CODES),
    ...SPEC_EMBED_ERROR_CODES,
    ...LICENSE_ERROR_CODES,
    // A refused download's JSON answer (api/downloads/routes.ts): the one error object, its own codes.
    ...Object.values(REFUSAL_CODE),
  ]);

  it('docs/errors.md lists every code an envelope can send in a row of its own, and no other', () => {
    const missing = [...sendable].filter((code) => !listed.has(code));
    expect(missing, 'codes docs/errors.md does not list').to.deep.equal([]);
    const unsent = [...listed].filter((code) => !sendable.has(code));
    expect(unsent, 'codes docs/errors.md lists that nothing sends').to.deep.equal([]);
  });

  it('the OpenAPI document enumerates every error_code it shows, and together they are what is sent', () => {
    const found = new Map<string, string[]>();
    const openapi = buildOpenApiDocument(allRoutes({ nodeEnv: 'development' }), {
      publicBaseUrl: 'http://localhost',
    });
    documentedCodes(openapi, '#', found);
    expect(found.size).to.be.greaterThan(5);
    const open = [...found].filter(([, codes]) => codes.length === 0).map(([at]) => at);
    expect(open, 'error_code schemas that allow any string').to.deep.equal([]);
    const documented = new Set([...found.values()].flat());
    expect(
      [...sendable].filter((code) => !documented.has(code)),
      'sent, not documented',
    ).to.deep.equal([]);
    expect(
      [...documented].filter((code) => !sendable.has(code)),
      'documented, never sent',
    ).to.deep.equal([]);
  });

  it('every code is lower_snake_case, named as its key, has Arabic, and defaults are declared codes', () => {
    for (const [key, code] of Object.entries(ERROR_CODES)) {
      expect(code).to.match(/^[a-z]+(_[a-z]+)*$/);
      expect(code).to.equal(key);
      expect(ERROR_MESSAGES_AR[code]({}), code).to.match(/[\u0600-\u06FF]/);
    }
    for (const code of Object.values(DEFAULT_ERROR_CODE)) {
      expect(Object.values(ERROR_CODES)).to.include(code);
    }
  });
});
