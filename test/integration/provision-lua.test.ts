import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findOrInstallLua } from '../../scripts/lib/provision';

/** npm test provides lua5.4 for the FiveM resource's test as it provides redis-server: apt-get when missing. */
describe('finding or installing lua5.4', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'provision-lua-'));
    dirs.push(dir);
    return dir;
  };
  after(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  /** An executable script `name` in `dir` that appends its arguments to `dir`/calls. */
  const fakeCommand = (dir: string, name: string, body = ''): void => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> "${dir}/calls"\n${body}\n`);
    fs.chmodSync(file, 0o755);
  };

  it('takes lua5.4 from the search path without installing anything', async () => {
    const dir = tempDir();
    fakeCommand(dir, 'lua5.4');
    fakeCommand(dir, 'apt-get');
    expect(await findOrInstallLua(dir, () => undefined)).to.equal(path.join(dir, 'lua5.4'));
    expect(fs.existsSync(path.join(dir, 'calls'))).to.equal(false);
  });

  it("installs Debian's lua5.4 with apt-get when it is missing, and says so when that fails", async () => {
    const dir = tempDir();
    fakeCommand(dir, 'apt-get', `case "$1" in install) cp "$0" "${dir}/lua5.4" ;; esac`);
    fakeCommand(dir, 'sudo', 'shift; exec "$@"');
    const lines: string[] = [];
    expect(await findOrInstallLua(dir, (line) => lines.push(line))).to.equal(path.join(dir, 'lua5.4'));
    const apt = fs
      .readFileSync(path.join(dir, 'calls'), 'utf8')
      .trim()
      .split('\n')
      .filter((c) => c.startsWith('apt-get'));
    expect(apt).to.deep.equal(['apt-get update -q', 'apt-get install -y -q --no-install-recommends lua5.4']);
    expect(lines[0]).to.equal("lua: lua5.4 is missing; installing Debian's lua5.4 package with apt-get");

    const broken = tempDir();
    fakeCommand(broken, 'apt-get', 'exit 100');
    fakeCommand(broken, 'sudo', 'shift; exec "$@"');
    const error = await findOrInstallLua(broken, () => undefined).then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).to.equal('apt-get update failed: install lua5.4');
  });
});
