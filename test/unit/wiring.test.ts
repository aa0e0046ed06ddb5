import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The platform's code reaches Postgres only through the connection its process wired (createDeps): no
 * model query may rely on objection's global knex binding, which the platform never sets (only the
 * tests' data builders do). A query written as `Model.query()` would work in the tests and fail in
 * production, so it is refused here, by reading the sources.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const TIERS = ['api', 'shared', 'workers', 'scripts', 'db'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('wiring', () => {
  const files = TIERS.flatMap((tier) => sources(path.join(ROOT, tier)));

  it('reads the platform’s sources (the check below is not vacuous)', () => {
    expect(files.length).to.be.greaterThan(50);
    expect(files.some((f) => f.endsWith(path.join('api', 'app.ts')))).to.equal(true);
  });

  it('names the connection of every model query (no global knex binding)', () => {
    const offending: string[] = [];
    for (const file of files) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (
            /\b[A-Z]\w*\.query\(\s*\)|\$query\(\s*\)|\$relatedQuery\(\s*'[^']*'\s*\)|Model\.knex\(/.test(line)
          ) {
            offending.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
          }
        });
    }
    expect(offending, 'pass deps.knex or the transaction: Model.query(knex)').to.deep.equal([]);
  });

  it('keeps no module-level state in shared/services (services are built once, in createDeps)', () => {
    // A WeakMap keyed on the deps object, or a module-level Map, is a second, hidden wiring: per-process
    // services are built in shared/create-services.ts and caches live in deps.caches.
    const services = files.filter((f) => f.startsWith(path.join(ROOT, 'shared', 'services') + path.sep));
    expect(services.length).to.be.greaterThan(50);
    const offending: string[] = [];
    for (const file of services) {
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const moduleLevel = /^(export\s+)?(const|let|var)\s+\w+[^=]*=\s*new\s+(Weak)?(Map|Set)\b/.test(
            line,
          );
          if (moduleLevel || /\bnew\s+WeakMap\b/.test(line)) {
            offending.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
          }
        });
    }
    expect(
      offending,
      'build it in createServices (shared/create-services.ts) or take it as a parameter',
    ).to.deep.equal([]);
  });
});
