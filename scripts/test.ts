import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MochaSummary, summaryLine } from './mocha-reporter';
import { buildWidget, describeBuild, WIDGET_GZIP_BUDGET } from './build-widget';
import { checkLockFile } from './lib/lockfile';
import {
  findOrInstallChromium,
  findOrInstallLua,
  findOrInstallXmllint,
  provision,
  Provisioned,
} from './lib/provision';
import { splitLanes } from './lib/test-lanes';

/**
 * `npm test`: provide Postgres and Redis (and the Chromium of the browser tests), then ESLint + Prettier, the typecheck and the whole mocha suite.
 * Every check runs even when an earlier one failed, so one run shows everything that is wrong. The last
 * line is always `N passed, N failed`: the tests' counts, plus one failure per failed check (lint,
 * typecheck) or a suite that could not run, so a broken run never reads as "no tests".
 */

const root = path.resolve(__dirname, '..');
const bin = (file: string): string => path.join(root, 'node_modules', file);
const MOCHA_SPEC = 'test/**/*.test.ts';

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

interface CheckResult {
  name: string;
  ok: boolean;
  seconds: number;
  detail?: string;
}

/** The tools running now (lint and the typecheck run side by side), stopped together on a signal. */
const running = new Set<ReturnType<typeof spawn>>();

function run(argv: string[], env: NodeJS.ProcessEnv = process.env, output?: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: root,
      env,
      stdio: ['ignore', output ? 'pipe' : 'inherit', output ? 'pipe' : 'inherit'],
    });
    running.add(child);
    if (output) {
      child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    }
    child.once('error', (err) => {
      running.delete(child);
      say(`could not run ${argv.join(' ')}: ${err.message}`);
      resolve(127);
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

async function check(name: string, commands: string[][], env?: NodeJS.ProcessEnv): Promise<CheckResult> {
  const started = Date.now();
  let ok = true;
  for (const argv of commands) {
    const tool = path.basename(argv[1] ?? argv[0]).replace(/\.(c?js|mjs)$/, '');
    say(`\n── ${name}: ${tool} ${argv.slice(2).join(' ')}`);
    if ((await run(argv, env)) !== 0) ok = false;
  }
  return { name, ok, seconds: (Date.now() - started) / 1000 };
}

interface Lane {
  name: string;
  files: string[];
  /** Mocha's parallel mode over TEST_JOBS worker processes (2 by default: the machine's cores). */
  parallel: boolean;
  env: NodeJS.ProcessEnv;
  summaryFile: string;
  /** Collects the lane's output instead of printing it as it comes (a lane running beside another). */
  output?: string[];
}

/** One mocha process over `files`, its databases and Redis keys under a run id of its own. */
async function runLane(lane: Lane): Promise<CheckResult> {
  const started = Date.now();
  const jobs = process.env.TEST_JOBS ?? '2';
  const argv = [
    process.execPath,
    bin('mocha/bin/mocha.js'),
    '--reporter',
    path.join('scripts', 'mocha-reporter.ts'),
    ...(lane.parallel ? ['--parallel', '--jobs', jobs] : []),
    ...lane.files,
  ];
  const header = `\n── ${lane.name}: mocha${lane.parallel ? ` --parallel --jobs ${jobs}` : ''} (${lane.files.length === 1 ? lane.files[0] : `${lane.files.length} files`})`;
  if (lane.output) lane.output.push(`${header}\n`);
  else say(header);
  const env = {
    ...lane.env,
    MOCHA_SUMMARY_FILE: lane.summaryFile,
    TEST_RUN_ID: `${process.pid}_${lane.name.replace(/\W/g, '')}`,
  };
  const code = await run(argv, env, lane.output);
  return { name: lane.name, ok: code === 0, seconds: (Date.now() - started) / 1000 };
}

/**
 * The whole suite in two lanes side by side (scripts/lib/test-lanes.ts): the browser files one after
 * another, every other file in Mocha's parallel mode. The browser lane's output is printed when both
 * are done, so neither lane's lines are cut into the other's; the summary adds both lanes up.
 */
async function runLanes(env: NodeJS.ProcessEnv, summaryFile: string): Promise<CheckResult> {
  const started = Date.now();
  const lanes = splitLanes(root);
  const browserOutput: string[] = [];
  const files = { parallel: `${summaryFile}.parallel`, browser: `${summaryFile}.browser` };
  const [parallel, browser] = await Promise.all([
    runLane({ name: 'mocha', files: lanes.parallel, parallel: true, env, summaryFile: files.parallel }),
    runLane({
      name: 'mocha browser',
      files: lanes.browser,
      parallel: false,
      env,
      summaryFile: files.browser,
      output: browserOutput,
    }),
  ]);
  process.stdout.write(browserOutput.join(''));
  say(`(browser lane: ${browser.seconds.toFixed(1)} s; parallel lane: ${parallel.seconds.toFixed(1)} s)`);
  const summaries: MochaSummary[] = [];
  for (const file of Object.values(files)) {
    try {
      summaries.push(JSON.parse(fs.readFileSync(file, 'utf8')) as MochaSummary);
    } catch {
      // A lane that did not run to its end wrote no summary: the run's summary is missing too, below.
    }
    fs.rmSync(file, { force: true });
  }
  if (summaries.length === 2) {
    const total: MochaSummary = summaries.reduce((a, b) => ({
      passed: a.passed + b.passed,
      failed: a.failed + b.failed,
      skipped: a.skipped + b.skipped,
      durationMs: Math.max(a.durationMs, b.durationMs),
      failures: [...(a.failures ?? []), ...(b.failures ?? [])],
      files: [...(a.files ?? []), ...(b.files ?? [])].sort((x, y) => y.ms - x.ms),
    }));
    fs.writeFileSync(summaryFile, JSON.stringify(total));
  }
  return { name: 'mocha', ok: parallel.ok && browser.ok, seconds: (Date.now() - started) / 1000 };
}

/** How many of the slowest test files the end of the run names. */
const SLOWEST_SHOWN = 8;

/** `startedAt`: when run.mjs began, so the total includes installing the dependencies. */
export async function main(args: string[], startedAt = Date.now()): Promise<number> {
  const started = startedAt;
  const results: CheckResult[] = [];
  let services: Provisioned | undefined;
  let interrupted = false;

  const onSignal = (signal: NodeJS.Signals): void => {
    interrupted = true;
    say(`\n${signal}: stopping the tests`);
    for (const child of running) child.kill(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // .mocharc.json names no spec, so that `npx mocha FILE` runs that file alone; the whole suite by default.
  const spec = args.length > 0 ? args : [MOCHA_SPEC];
  let mocha: MochaSummary | undefined;
  let provisioningFailed = false;
  // A fresh clone's `npm ci` must accept the lock file (no fallback hides it): checked on a copy, in the
  // background while the services come up, and reported in one line unless it fails.
  const lockCheck = checkLockFile(root);
  try {
    const provisionStarted = Date.now();
    try {
      services = await provision({
        root,
        env: process.env,
        databaseVariables: ['TEST_DATABASE_URL', 'DATABASE_URL'],
        log: say,
      });
      results.push({ name: 'services', ok: true, seconds: (Date.now() - provisionStarted) / 1000 });
    } catch (err) {
      provisioningFailed = true;
      say(`services: ${(err as Error).message}`);
      results.push({ name: 'services', ok: false, seconds: (Date.now() - provisionStarted) / 1000 });
    }

    // The browser tests drive Debian's chromium through playwright-core; install it when missing. A failure
    // here fails the run (those tests cannot pass) but every other check still runs.
    let chromiumPath: string | undefined;
    if (!interrupted) {
      const chromiumStarted = Date.now();
      try {
        chromiumPath = await findOrInstallChromium(process.env, say);
        say(`chromium: ${chromiumPath}`);
        results.push({ name: 'chromium', ok: true, seconds: (Date.now() - chromiumStarted) / 1000 });
      } catch (err) {
        say(`chromium: ${(err as Error).message}`);
        results.push({ name: 'chromium', ok: false, seconds: (Date.now() - chromiumStarted) / 1000 });
      }
    }

    const lock = await lockCheck;
    say(
      lock.ok
        ? `lockfile: a clean npm ci accepts package-lock.json (npm ci --dry-run, ${lock.seconds.toFixed(1)} s)`
        : `lockfile: a clean npm ci would fail:\n${lock.problems.map((p) => `  ${p}`).join('\n')}`,
    );
    results.push({ name: 'lockfile', ok: lock.ok, seconds: lock.seconds });

    if (!interrupted) {
      // Side by side: each is one single-threaded process, and the machine has two cores (about 25 s saved).
      results.push(
        ...(await Promise.all([
          check('lint', [
            [process.execPath, bin('eslint/bin/eslint.js'), '.'],
            [process.execPath, bin('prettier/bin/prettier.cjs'), '--check', '.'],
          ]),
          check('typecheck', [
            [process.execPath, bin('typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit'],
            [process.execPath, bin('typescript/bin/tsc'), '-p', path.join('widget', 'tsconfig.json')],
            [
              process.execPath,
              bin('typescript/bin/tsc'),
              '-p',
              path.join('integrations', 'sdk', 'tsconfig.json'),
            ],
          ]),
        ])),
      );
    }
    if (!interrupted) {
      // The API serves dist/widget/v1.js and the browser tests load it: built before the suite runs.
      const widgetStarted = Date.now();
      say('\n── widget: esbuild widget/src/index.ts');
      let ok = false;
      try {
        const built = await buildWidget();
        say(describeBuild(built));
        ok = built.gzipBytes <= WIDGET_GZIP_BUDGET;
      } catch (err) {
        say(`widget: build failed: ${(err as Error).message}`);
      }
      results.push({ name: 'widget', ok, seconds: (Date.now() - widgetStarted) / 1000 });
    }

    if (services && !interrupted) {
      const summaryFile = path.join(os.tmpdir(), `mocha-summary-${process.pid}.json`);
      fs.rmSync(summaryFile, { force: true });
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        TEST_DATABASE_URL: services.postgresServerUrl,
        DATABASE_URL: services.postgresServerUrl,
        REDIS_URL: services.redisUrl,
        MOCHA_SUMMARY_FILE: summaryFile,
        ...(chromiumPath ? { CHROMIUM_PATH: chromiumPath } : {}),
      };
      // The FiveM resource's test runs it with Lua 5.4 (installed here when missing).
      try {
        env.LUA = await findOrInstallLua(process.env.PATH ?? '', say);
      } catch (err) {
        say(`lua: ${(err as Error).message}`);
      }
      // The e-invoicing tests check our canonical XML against libxml2's (installed here when missing).
      try {
        await findOrInstallXmllint(process.env.PATH ?? '', say);
      } catch (err) {
        say(`xmllint: ${(err as Error).message}`);
      }
      const result =
        args.length > 0
          ? await runLane({ name: 'mocha', files: spec, parallel: false, env, summaryFile })
          : await runLanes(env, summaryFile);
      try {
        mocha = JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as MochaSummary;
        fs.rmSync(summaryFile, { force: true });
      } catch {
        result.detail = 'the suite did not run to its end';
      }
      results.push(result);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (services)
      await services.stop().catch((err: Error) => say(`services: stopping failed: ${err.message}`));
  }

  const failedChecks = results.filter((r) => r.name !== 'mocha' && !r.ok).length;
  const mochaCrashed = !mocha && !provisioningFailed && !interrupted ? 1 : 0;
  const passed = mocha?.passed ?? 0;
  const failed = (mocha?.failed ?? 0) + failedChecks + mochaCrashed;
  const skipped = mocha?.skipped ?? 0;

  if (mocha?.files?.length) {
    say("\n── slowest files (their tests' time added up)");
    for (const f of mocha.files.slice(0, SLOWEST_SHOWN))
      say(`${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.file}`);
  }
  if (mocha?.failures?.length) {
    // Said again here, after both lanes' output, where a log cut to its last lines still shows them.
    say(`\n── failures (${mocha.failures.length})`);
    mocha.failures.forEach((f, i) => {
      say(`${i + 1}) ${f.title}${f.file ? `\n   ${f.file}` : ''}`);
      say(f.message.replace(/^/gm, '   '));
    });
  }
  say('\n── summary');
  for (const r of results) {
    const outcome =
      r.name === 'mocha' && mocha
        ? summaryLine(mocha)
        : r.ok
          ? 'ok'
          : r.name === 'services'
            ? 'failed: no test could run'
            : `FAILED${r.detail ? ` (${r.detail})` : ''}`;
    say(`${r.name.padEnd(10)} ${outcome} (${r.seconds.toFixed(1)} s)`);
  }
  say(
    `${'total'.padEnd(10)} ${((Date.now() - started) / 1000).toFixed(1)} s${interrupted ? ' (interrupted)' : ''}`,
  );
  say(summaryLine({ passed, failed, skipped }));
  if (interrupted) return 130;
  return failed === 0 && !provisioningFailed ? 0 : 1;
}
