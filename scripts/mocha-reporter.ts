import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';

/** One failed test or hook, said again at the end of the run where a truncated log still shows it. */
export interface FailureRecord {
  title: string;
  file?: string;
  message: string;
}

/** What the reporter hands to scripts/test.ts through the file named by MOCHA_SUMMARY_FILE. */
export interface MochaSummary {
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  failures?: FailureRecord[];
  /** Each file's tests' time added up (hooks not counted), slowest first. */
  files?: { file: string; ms: number }[];
}

export function summaryLine(s: Pick<MochaSummary, 'passed' | 'failed' | 'skipped'>): string {
  return `${s.passed} passed, ${s.failed} failed${s.skipped > 0 ? `, ${s.skipped} skipped` : ''}`;
}

/** The error's message (at most `lines` lines of it) and the first two frames from our own code. */
function describeError(err: unknown, lines = 12): string {
  const e = err as { message?: unknown; stack?: unknown } | undefined;
  const message = String(e?.message ?? err).trim();
  const ours = String(e?.stack ?? '')
    .split('\n')
    .filter((l) => /^\s+at /.test(l) && !l.includes('node_modules') && !l.includes('node:internal'))
    .slice(0, 2)
    .map((l) => l.trim().replace(`${process.cwd()}${path.sep}`, ''));
  // A long message (a script's whole output) keeps its first lines and its last, where the reason is.
  const said = message.split('\n');
  const kept = said.length <= lines ? said : [...said.slice(0, 2), '…', ...said.slice(-(lines - 3))];
  return [...kept, ...ours].join('\n');
}

/**
 * Mocha's spec output, then one plain line `N passed, N failed` (`, N skipped` when tests are pending), which
 * CI reads as the result. Failures of hooks count as failures, as Mocha counts them. The summary file also
 * carries each failure (title, file, message) and each file's time, which scripts/test.ts prints last.
 */
export default class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const failures: FailureRecord[] = [];
    const fileMs = new Map<string, number>();
    const relative = (file: string | undefined): string | undefined =>
      file ? path.relative(process.cwd(), file) : undefined;
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test: Mocha.Runnable, err: unknown) => {
      failures.push({ title: test.fullTitle(), file: relative(test.file), message: describeError(err) });
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_END, (test: Mocha.Test) => {
      const file = relative(test.file);
      if (file) fileMs.set(file, (fileMs.get(file) ?? 0) + (test.duration ?? 0));
    });
    // Registered after Spec's own handler, so the line comes after the epilogue.
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const stats = this.stats;
      const summary: MochaSummary = {
        passed: stats.passes,
        failed: stats.failures,
        skipped: stats.pending,
        durationMs: stats.duration ?? 0,
        failures,
        files: [...fileMs].map(([file, ms]) => ({ file, ms })).sort((a, b) => b.ms - a.ms),
      };
      process.stdout.write(`${summaryLine(summary)}\n`);
      const file = process.env.MOCHA_SUMMARY_FILE;
      if (file) fs.writeFileSync(file, JSON.stringify(summary));
    });
  }
}
