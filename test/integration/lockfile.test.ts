import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkLockFile } from '../../scripts/lib/lockfile';

/**
 * The test command's lock-file check (a clean `npm ci --dry-run` on a copy). The repository's own lock file
 * passes it on every `npm test` (the `lockfile` line of the summary); here, one missing the optional platform
 * packages of @msgpackr-extract, the fault a fresh clone once hit, is caught and named.
 */
describe('lock file check', function () {
  this.timeout(60_000);
  const root = path.resolve(__dirname, '..', '..');
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lockfile-test-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fails, naming the missing packages, when the lock file lacks optional platform packages', async () => {
    fs.copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const platform = Object.keys(lock.packages).filter((key) =>
      key.includes('@msgpackr-extract/msgpackr-extract-'),
    );
    expect(platform).to.not.be.empty;
    for (const key of platform) delete lock.packages[key];
    fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock, null, 2));

    const result = await checkLockFile(dir);
    expect(result.ok).to.equal(false);
    expect(result.problems.join('\n')).to.match(
      /Missing: @msgpackr-extract\/msgpackr-extract-linux-x64@[\d.]+ from lock file/,
    );
  });

  it('fails when there is no lock file at all', async () => {
    fs.rmSync(path.join(dir, 'package-lock.json'), { force: true });
    const result = await checkLockFile(dir);
    expect(result).to.deep.include({ ok: false, problems: ['package-lock.json is missing'] });
  });
});
