// Entry of `npm start` and `npm test` (and the `prepare` build). Plain JavaScript with Node's own modules
// only, because it runs before the dependencies are installed: it installs them when needed, then hands
// over to scripts/start.ts or scripts/test.ts through tsx. An ES module so that the project's ESLint setup
// (no Node globals, no require) accepts it as it is.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (line) => process.stdout.write(`${line}\n`);

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * npm writes node_modules/.package-lock.json at the end of every install, so it is older than
 * package-lock.json exactly when the lock file changed (a pull, a new dependency) since the last install.
 */
function installReason() {
  const installed = mtime(path.join(root, 'node_modules', '.package-lock.json'));
  if (installed === null) return 'node_modules is missing';
  const lock = mtime(path.join(root, 'package-lock.json'));
  if (lock !== null && lock > installed) return 'package-lock.json is newer than node_modules';
  return null;
}

function npm(args) {
  const started = Date.now();
  const result = spawnSync('npm', args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, SCARF_ANALYTICS: 'false' },
  });
  if (result.error) say(`deps: could not run npm: ${result.error.message}`);
  return { ok: result.status === 0, seconds: ((Date.now() - started) / 1000).toFixed(1) };
}

function ensureDependencies() {
  const reason = installReason();
  if (!reason) {
    say('deps: node_modules is up to date');
    return true;
  }
  say(`deps: ${reason}; installing with npm ci`);
  const ci = npm(['ci', '--no-audit', '--no-fund']);
  if (ci.ok) {
    say(`deps: installed in ${ci.seconds} s`);
    return true;
  }
  // No fallback to `npm install`: it would rewrite the lock file and hide that the one in the repository
  // cannot be installed as it is, which is exactly what CI and every other clone would then hit.
  say('deps: npm ci failed (see the npm output above); nothing else was tried.');
  say('deps: when npm says package.json and package-lock.json are out of sync, run `npm install` once,');
  say('deps: review and commit the updated package-lock.json, then start again.');
  return false;
}

/**
 * The `prepare` lifecycle script (run by `npm ci` and `npm install`): compiles dist/ so the Procfile's
 * commands work right after installing. A compile error must not undo the installation, so it is reported
 * and left to `npm run build` / the typecheck to fail on; an install without TypeScript (`--omit=dev`)
 * has nothing to build with and ships a dist/ built elsewhere (see the Dockerfile).
 */
function prepare() {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!fs.existsSync(tsc)) {
    say('prepare: TypeScript is not installed (production install); dist/ must come from a build step');
    return 0;
  }
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0)
    say('prepare: the build reported errors (see above); `npm run build` shows them again');
  // The checkout widget (dist/widget/v1.js), which the API serves at /widget/v1.js.
  const widget = path.join(root, 'dist', 'scripts', 'build-widget.js');
  const widgetBuilt =
    fs.existsSync(widget) &&
    spawnSync(process.execPath, [widget], { cwd: root, stdio: 'inherit' }).status === 0;
  // dist/ now matches the sources: `npm start` and the bench skip a build that would change nothing
  // (scripts/lib/build-stamp.ts). Recorded after the build, which an install runs on sources nobody edits.
  const stamp = path.join(root, 'dist', 'scripts', 'lib', 'build-stamp.js');
  if (result.status === 0 && widgetBuilt && fs.existsSync(stamp))
    createRequire(import.meta.url)(stamp).recordBuild(root);
  return 0;
}

async function main() {
  const startedAt = Date.now();
  const [command, ...args] = process.argv.slice(2);
  if (command === 'prepare') return prepare();
  if (!['start', 'test', 'bench', 'demo'].includes(command)) {
    say('usage: node scripts/run.mjs start|test|bench|demo|prepare');
    return 2;
  }
  if (!ensureDependencies()) {
    say('deps: installation failed; see the npm output above');
    if (command === 'test') say('0 passed, 1 failed');
    return 1;
  }
  // npm passes SIGTERM on to no one: it exits and leaves its script running. A new parent means npm
  // (or the shell) is gone, which is taken as the SIGTERM we were not sent.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
  }, 1_000).unref();

  const require = createRequire(import.meta.url);
  require('tsx/cjs');
  const script = require(path.join(root, 'scripts', `${command}.ts`));
  return script.main(args, startedAt);
}

const code = await main();
// Exit explicitly (an open handle must not keep a finished run alive), but only once stdout has taken
// everything: on a pipe its writes are asynchronous, and the last line is the one CI reads.
process.stdout.write('', () => process.exit(code));
