import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../..');
/** What a clone carries and a reader follows: configuration, docs and the code's comments. */
const FILES = ['.env.example', 'README.md', 'Dockerfile', 'docker-compose.yml', 'Procfile'];
const FOLDERS = [
  'docs',
  'api',
  'shared',
  'workers',
  'db',
  'scripts',
  'integrations',
  'widget/src',
  'fixtures',
];
const TEXT = /\.(ts|js|mjs|md|ya?ml|json|lua|sql|html|css|txt)$/;
/** A tracker's issue ("issue 10", "issues #3") or the operator contract's section numbers: neither is in a clone. */
const CITATION = /\bissues? #?\d+\b|\bCONTRACT(?:\.md)? section\b/i;

function* walk(dir: string): Generator<string> {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (TEXT.test(entry.name)) yield full;
  }
}

/** Docs and comments cite our own docs (docs/security.md, docs/operations.md ...), never a tracker's issue. */
describe('citations', () => {
  it('no file of the repository cites an issue number or a section of the operator contract', () => {
    const files = [
      ...FILES.map((f) => path.join(ROOT, f)).filter((f) => fs.existsSync(f)),
      ...FOLDERS.flatMap((d) => [...walk(path.join(ROOT, d))]),
    ];
    expect(files.length).to.be.above(100);
    const found: string[] = [];
    for (const file of files) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (CITATION.test(line)) found.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).to.deep.equal([]);
  });
});
