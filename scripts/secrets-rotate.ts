import { scriptDeps } from './lib/script-deps';
import { resealAll, type ColumnReport } from '../shared/services/secrets/sealed-data';

/** The summary `npm run secrets:rotate` ends with, and its exit code (1 when a value opened under no secret). */
export function rotationSummary(reports: readonly ColumnReport[]): { code: number; text: string } {
  const sum = (k: keyof Omit<ColumnReport, 'column'>): number => reports.reduce((n, r) => n + r[k], 0);
  const unreadable = sum('unreadable');
  let text =
    `secrets:rotate: ${sum('resealed')} re-sealed under APP_SECRET, ${sum('current')} already under it, ` +
    `${sum('changed')} written by the platform meanwhile (kept), ${unreadable} unreadable\n`;
  if (unreadable > 0)
    text +=
      `secrets:rotate: ${unreadable} value(s) open under neither APP_SECRET nor APP_SECRET_PREVIOUS ` +
      `(${reports
        .filter((r) => r.unreadable > 0)
        .map((r) => r.column)
        .join(', ')}); add the secret they were sealed under to APP_SECRET_PREVIOUS and run it again\n`;
  return { code: unreadable > 0 ? 1 : 0, text };
}

/**
 * `npm run secrets:rotate`: re-seals every sealed value under the current APP_SECRET, reading through
 * APP_SECRET_PREVIOUS (docs/security.md, "Rotating APP_SECRET"). Safe to run twice and while the platform
 * serves. Prints a line per batch and a summary.
 */
async function main(): Promise<number> {
  const deps = await scriptDeps('secrets:rotate');
  if (!deps) return 1;
  try {
    const previous = deps.config.appSecretPrevious.length;
    process.stdout.write(
      `secrets:rotate: sealing under APP_SECRET (key ${deps.cipher.keyId}), reading through ${previous} ` +
        `previous secret(s)\n`,
    );
    const reports = await resealAll(deps.knex, deps.cipher, {
      progress: (line) => process.stdout.write(`secrets:rotate: ${line}\n`),
    });
    for (const r of reports)
      process.stdout.write(
        `secrets:rotate: ${r.column}: ${r.resealed} re-sealed, ${r.current} already current, ` +
          `${r.changed} changed meanwhile, ${r.unreadable} unreadable\n`,
      );
    const summary = rotationSummary(reports);
    (summary.code === 0 ? process.stdout : process.stderr).write(summary.text);
    return summary.code;
  } finally {
    await deps.close();
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: Error) => {
      process.stderr.write(`secrets:rotate: failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
