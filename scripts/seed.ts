import pino from 'pino';
import { Config, ConfigError, loadConfig } from '../shared/config';
import { createDeps, Deps, StartupError } from '../shared/deps';
import { FixtureError, loadFixture, readFixtureFile, validateFixture } from '../shared/services/seed';

/**
 * `seed FILE` (docs/operations.md): loads a fixture into the database named by DATABASE_URL and prints the
 * manifest as one JSON document on stdout. stdout carries the manifest and nothing else, so every log line
 * goes to stderr. A refused fixture, an unreadable file or an unreachable database exits 1 with the reason
 * on stderr.
 */
async function main(args: string[]): Promise<number> {
  if (args.length !== 1) {
    fail('usage: seed FILE');
    return 1;
  }
  const [file] = args;

  let fixture: unknown;
  let config: Config;
  try {
    fixture = await readFixtureFile(file);
    // Checked before connecting, so a bad file is refused even where no database is reachable.
    validateFixture(fixture);
    config = loadConfig();
  } catch (err) {
    if (err instanceof FixtureError || err instanceof ConfigError) {
      fail(err.message);
      return 1;
    }
    throw err;
  }

  const logger = pino({ level: config.logLevel, name: 'seed' }, pino.destination({ dest: 2, sync: true }));
  let deps: Deps;
  try {
    deps = await createDeps(config, { role: 'script', logger, pool: { min: 0, max: 2 } });
  } catch (err) {
    if (err instanceof StartupError) {
      fail(err.message);
      return 1;
    }
    throw err;
  }

  try {
    const manifest = await loadFixture(deps, fixture);
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(`${JSON.stringify(manifest)}\n`, (err) => (err ? reject(err) : resolve())),
    );
    return 0;
  } catch (err) {
    if (err instanceof FixtureError) {
      fail(err.message);
      return 1;
    }
    throw err;
  } finally {
    await deps.close();
  }
}

function fail(message: string): void {
  process.stderr.write(`seed: ${message}\n`);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    fail(`failed: ${err.message}`);
    process.exit(1);
  },
);
