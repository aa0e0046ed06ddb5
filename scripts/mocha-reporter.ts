import fs from 'node:fs';
import Mocha from 'mocha';

/** What the reporter hands to scripts/test.ts through the file named by MOCHA_SUMMARY_FILE. */
export interface MochaSummary {
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
}

export function summaryLine(s: Pick<MochaSummary, 'passed' | 'failed' | 'skipped'>): string {
  return `${s.passed} passed, ${s.failed} failed${s.skipped > 0 ? `, ${s.skipped} skipped` : ''}`;
}

/**
 * Mocha's spec output, then one plain line `N passed, N failed` (`, N skipped` when tests are pending), which
 * CI reads as the result. Failures of hooks count as failures, as Mocha counts them.
 */
export default class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    // Registered after Spec's own handler, so the line comes after the epilogue.
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const stats = this.stats;
      const summary: MochaSummary = {
        passed: stats.passes,
        failed: stats.failures,
        skipped: stats.pending,
        durationMs: stats.duration ?? 0,
      };
      process.stdout.write(`${summaryLine(summary)}\n`);
      const file = process.env.MOCHA_SUMMARY_FILE;
      if (file) fs.writeFileSync(file, JSON.stringify(summary));
    });
  }
}
