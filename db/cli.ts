import { Client } from 'pg';
import { migrateDatabase } from './migrate';

/**
 * `node dist/db/cli.js migrate` (the Procfile's `release`, `npm run db:migrate`): runs every pending
 * migration. Safe to run twice: the second run says it is already up to date. `db` imports nothing of the
 * rest of the code base, so DATABASE_URL is checked here rather than through shared/config.
 */

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/commerce';

function redact(url: URL): string {
  const copy = new URL(url.toString());
  if (copy.password) copy.password = '***';
  return copy.toString();
}

function databaseUrl(): URL {
  const raw = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('Invalid configuration: DATABASE_URL is not a valid URL');
  }
  if (!/^postgres(ql)?:$/.test(url.protocol)) {
    throw new Error('Invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  return url;
}

/** Connects once up front, so an unreachable server is one clear line rather than a pool time-out. */
async function checkReachable(url: URL): Promise<void> {
  const client = new Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new Error(`Postgres is not reachable at ${redact(url)}: ${e.message || e.code || String(err)}`, {
      cause: err,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrate(): Promise<void> {
  const url = databaseUrl();
  await checkReachable(url);
  const applied = await migrateDatabase(url.toString());
  if (applied.length === 0) {
    process.stdout.write(`migrate: ${redact(url)} is already up to date\n`);
    return;
  }
  for (const name of applied) process.stdout.write(`migrate: applied ${name}\n`);
  process.stdout.write(`migrate: ${applied.length} migration(s) applied to ${redact(url)}\n`);
}

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  if (command !== 'migrate') {
    process.stderr.write('usage: node dist/db/cli.js migrate\n');
    return 2;
  }
  try {
    await migrate();
    return 0;
  } catch (err) {
    process.stderr.write(`migrate: ${(err as Error).message}\n`);
    return 1;
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
