import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Whether a fresh clone's `npm ci` accepts the lock file: `npm ci --dry-run` on a copy of package.json and
 * package-lock.json in an empty directory, so nothing installed here (node_modules, a shared install) is
 * read or touched. npm refuses a lock file that lacks a package package.json needs, optional platform
 * packages included, which is what a clean install would trip on.
 */
export interface LockCheck {
  ok: boolean;
  seconds: number;
  /** npm's error lines (its `npm error` block) when the check failed. */
  problems: string[];
}

export async function checkLockFile(root: string, npm = 'npm'): Promise<LockCheck> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lock-check-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
      if (fs.existsSync(path.join(root, file))) fs.copyFileSync(path.join(root, file), path.join(dir, file));
    }
    if (!fs.existsSync(path.join(dir, 'package-lock.json'))) {
      return { ok: false, seconds: 0, problems: ['package-lock.json is missing'] };
    }
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      const child = spawn(
        npm,
        ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'],
        { cwd: dir, env: { ...process.env, SCARF_ANALYTICS: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      child.once('error', (err) => resolve({ code: 127, output: `could not run ${npm}: ${err.message}` }));
      child.once('close', (status) => resolve({ code: status ?? 1, output: text }));
    });
    const problems =
      code === 0
        ? []
        : output
            .split('\n')
            .filter((line) => /^npm error (?!$)/.test(line) || /^could not run/.test(line))
            .filter(
              (line) =>
                !/^npm error (Usage:|Options:|Clean install|npm ci$|\[--|aliases:|Run "npm help)/.test(line),
            )
            .map((line) => line.replace(/^npm error /, ''));
    return { ok: code === 0, seconds: (Date.now() - started) / 1000, problems };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
