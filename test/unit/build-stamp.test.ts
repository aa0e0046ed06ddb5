import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { buildIsCurrent, recordBuild } from '../../scripts/lib/build-stamp';

/** `npm start` skips the TypeScript build exactly when dist/ was built from the sources on disk. */
describe('build stamp (npm start skips a build that would change nothing)', () => {
  let root: string;
  const write = (file: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-stamp-'));
    write('api/app.ts', 'export const a = 1;\n');
    write('shared/config.ts', 'export const b = 2;\n');
    write('tsconfig.json', '{}\n');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is not current before any build, and current right after one', () => {
    expect(buildIsCurrent(root)).to.equal(false);
    recordBuild(root);
    expect(buildIsCurrent(root)).to.equal(true);
  });

  it('an edited, added or removed source, or a changed tsconfig, asks for a build', () => {
    const changes: Array<() => void> = [
      () => write('api/app.ts', 'export const a = 10;\n'),
      () => write('workers/new-file.ts', 'export {};\n'),
      () => fs.rmSync(path.join(root, 'shared/config.ts')),
      () => write('tsconfig.json', '{"compilerOptions":{}}\n'),
    ];
    for (const change of changes) {
      recordBuild(root);
      change();
      expect(buildIsCurrent(root), change.toString()).to.equal(false);
    }
  });

  it('a source touched while the build ran is built again next time', () => {
    const before = fs.statSync(path.join(root, 'api/app.ts'));
    recordBuild(root);
    const later = new Date(before.mtimeMs + 5_000);
    fs.utimesSync(path.join(root, 'api/app.ts'), later, later);
    expect(buildIsCurrent(root)).to.equal(false);
  });
});
