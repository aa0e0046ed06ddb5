import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';

/**
 * A source file reads in one screen of concerns: no non-test .ts file under api/, shared/, workers/,
 * scripts/ or db/ holds more than 500 lines of logic (lines with code on them; blank and comment-only
 * lines do not count). Migrations are history, not edited; the exceptions below say why they are long.
 * A file over the limit is split by concern into sibling files or a folder whose index re-exports.
 */
const ROOT = path.resolve(__dirname, '../..');
const LIMIT = 500;
const FOLDERS = ['api', 'shared', 'workers', 'scripts', 'db'];
const SKIPPED_FOLDERS = ['db/migrations'];

/** Files allowed over the limit, with why. The list only shrinks: a file back under it must leave. */
const EXCEPTIONS: Record<string, string> = {
  'scripts/bench.ts': 'another change is rewriting the benchmark now; split it after that lands',
  'api/dashboard/i18n.ts': 'a string table (Arabic and English per key): data, not logic',
};

/** Tokens after which a slash divides rather than opens a regular expression. */
const ENDS_EXPRESSION = new Set([
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.NumericLiteral,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.CloseParenToken,
  ts.SyntaxKind.CloseBracketToken,
  ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.ThisKeyword,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword,
]);

/** Lines holding at least one token that is not a comment or whitespace. */
export function logicLines(source: string): number {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, source);
  const lines = new Set<number>();
  const lineStarts: number[] = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (pos: number): number => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  // The scanner reads without parsing, so it learns from us where a template's `${...}` ends: depth of
  // braces, and the depths at which a template's substitution opened.
  let depth = 0;
  const templates: number[] = [];
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.OpenBraceToken) depth++;
    else if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (templates.at(-1) === depth) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) templates.pop();
      } else depth--;
    } else if (kind === ts.SyntaxKind.TemplateHead) templates.push(depth);
    else if (
      (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) &&
      !ENDS_EXPRESSION.has(previous)
    ) {
      // A slash where an expression starts (after `(`, `,`, `=`, `return`, ...) opens a regular expression.
      kind = scanner.reScanSlashToken();
    }
    previous = kind;
    for (let line = lineOf(scanner.getTokenStart()); line <= lineOf(scanner.getTokenEnd() - 1); line++) {
      lines.add(line);
    }
  }
  return lines.size;
}

function* walk(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const rel = path.relative(ROOT, full);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.includes(rel)) yield* walk(full);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) yield rel;
  }
}

describe('file size', () => {
  it('counts code lines, not blank or comment lines, and a multi-line template by its lines', () => {
    const source = [
      '/**',
      ' * A comment.',
      ' */',
      '',
      'const a = 1; // trailing',
      '// alone',
      'const sql = `select 1',
      '  from ${table}',
      '  where x`;',
      '/* block */ const b = 2;',
      "const re = /[`'\"]/g; const half = a / 2; // don't",
      '',
    ].join('\n');
    expect(logicLines(source)).to.equal(6);
  });

  it(`no source file has more than ${LIMIT} lines of logic but the listed exceptions`, () => {
    const files = FOLDERS.flatMap((folder) => [...walk(path.join(ROOT, folder))]);
    expect(files.length).to.be.above(300);
    const over = files
      .map((file) => ({ file, lines: logicLines(fs.readFileSync(path.join(ROOT, file), 'utf8')) }))
      .filter(({ file, lines }) => lines > LIMIT && !(file in EXCEPTIONS))
      .map(({ file, lines }) => `${file}: ${lines}`);
    expect(over).to.deep.equal([]);
  });

  it('each exception is still over the limit (one back under it leaves the list)', () => {
    for (const file of Object.keys(EXCEPTIONS)) {
      expect(logicLines(fs.readFileSync(path.join(ROOT, file), 'utf8')), file).to.be.above(LIMIT);
    }
  });
});
