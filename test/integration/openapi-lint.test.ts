import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOpenApiDocument } from '../../api/http/openapi';
import type { MediaTypeObject, OpenApiDocument, Reference, ResponseObject } from '../../api/openapi/types';
import { HTTP_METHODS } from '../../api/openapi/types';
import { allRoutes } from '../../api/routes';

/**
 * The generated document as tools take it: Redocly's recommended rules (redocly.yaml) and Spectral's
 * `spectral:oas` ruleset (.spectral.yaml) find nothing in it, errors and warnings alike (Redocly for the
 * routes of a development and of a production process). Both check every example against its schema.
 */

const root = path.resolve(__dirname, '../..');
const bin = (name: string): string => path.join(root, 'node_modules', '.bin', name);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

const run = (file: string, args: string[]): Promise<Outcome> =>
  new Promise((resolve) => {
    execFile(file, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ pointer: string }>;
}

interface SpectralProblem {
  code: string;
  severity: number;
  message: string;
  path: string[];
}

const documents = (['test', 'production'] as const).map((nodeEnv) => ({
  nodeEnv,
  doc: buildOpenApiDocument(allRoutes({ nodeEnv }), {
    publicBaseUrl: 'https://shop.example.test',
  }),
}));

describe('OpenAPI document under Redocly and Spectral', function () {
  this.timeout(120_000);
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
    for (const { nodeEnv, doc } of documents) {
      fs.writeFileSync(path.join(dir, `${nodeEnv}.json`), JSON.stringify(doc));
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const { nodeEnv } of documents) {
    it(`Redocly's recommended rules: no error, no warning (${nodeEnv} routes)`, async () => {
      const out = await run(bin('redocly'), [
        'lint',
        path.join(dir, `${nodeEnv}.json`),
        '--config',
        path.join(root, 'redocly.yaml'),
        '--format',
        'json',
      ]);
      const report = JSON.parse(out.stdout) as { problems: RedoclyProblem[] };
      const problems = report.problems.map(
        (p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`,
      );
      expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
      expect(out.code).to.equal(0);
    });

    // The production document is the development one less the /__dev routes: Spectral (the slower tool)
    // reads the larger one; Redocly reads both, for a component only development routes would use.
    if (nodeEnv === 'production') continue;
    it(`Spectral's spectral:oas: no error, no warning (${nodeEnv} routes)`, async () => {
      const out = await run(bin('spectral'), [
        'lint',
        path.join(dir, `${nodeEnv}.json`),
        '--ruleset',
        path.join(root, '.spectral.yaml'),
        '--format',
        'json',
        '--fail-severity',
        'hint',
        '--quiet',
      ]);
      const problems = (JSON.parse(out.stdout || '[]') as SpectralProblem[]).map(
        (p) => `${p.severity} ${p.code} ${p.path.join('/')}: ${p.message}`,
      );
      expect(problems, problems.slice(0, 20).join('\n')).to.deep.equal([]);
      expect(out.code).to.equal(0);
    });
  }

  it('has an example on every request body (webhook events too) and on a 2xx answer of every operation with a JSON one', () => {
    const { doc } = documents[0]!;
    const missing: string[] = [];
    const hasExample = (content: Record<string, MediaTypeObject> | undefined): boolean =>
      Object.values(content ?? {}).some((m) => m.example !== undefined);
    const items = [
      ...Object.entries(doc.paths),
      ...Object.entries(doc.webhooks).map(([event, item]) => [`webhook ${event}`, item] as const),
    ];
    for (const [where, item] of items) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        const name = `${method.toUpperCase()} ${where}`;
        const body = op.requestBody;
        if (body && !('$ref' in body) && !hasExample(body.content)) missing.push(`${name} request body`);
        const ok = Object.entries(op.responses)
          .filter(([status]) => status.startsWith('2'))
          .map(([, r]) => resolve(doc, r));
        const json = ok.filter((r) => r.content?.['application/json']);
        if (json.length > 0 && !json.some((r) => hasExample(r.content))) missing.push(`${name} 2xx answer`);
      }
    }
    expect(missing).to.deep.equal([]);
  });
});

function resolve(doc: OpenApiDocument, r: ResponseObject | Reference): ResponseObject {
  if (!('$ref' in r)) return r;
  return doc.components.responses[r.$ref.replace('#/components/responses/', '')]!;
}
