import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A throwaway Postgres primary and a streaming replica of it, on free loopback ports, for the read-replica
 * test (test/e2e/pg-replica.test.ts). The replica is made with `pg_basebackup -R` and holds every commit
 * back by `recovery_min_apply_delay`, so the test sees a known lag. Both servers and their directory are
 * removed by `stop` (and, should the process end without it, by an exit hook).
 *
 * The binaries are the newest /usr/lib/postgresql/<version>/bin that has initdb, pg_ctl and pg_basebackup
 * together (one version for all three, as pg_basebackup requires); Postgres refuses to run as root, so
 * under root the servers run as the `postgres` system user.
 */

const run = promisify(execFile);

export interface PgReplicaPair {
  primaryUrl(database: string): string;
  replicaUrl(database: string): string;
  /** Starts the replica from a fresh base backup of the primary (create databases on the primary first). */
  startReplica(): Promise<void>;
  /** Stops the replica at once, as a crash would (connections cut, nothing flushed). */
  stopReplica(): Promise<void>;
  /** Stops both servers and removes their files; safe to call twice. */
  stop(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const v of versions) {
    const dir = path.join(root, v, 'bin');
    if (['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'].every((b) => fs.existsSync(path.join(dir, b))))
      return dir;
  }
  throw new Error('no Postgres server binaries (initdb, pg_ctl, pg_basebackup) under /usr/lib/postgresql');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Who the servers run as: ourselves, or `postgres` when we are root. */
function serverUser(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root and there is no postgres user to run the servers as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export async function startPgReplicaPair(opts: { applyDelayMs: number }): Promise<PgReplicaPair> {
  const bin = binDir();
  const user = serverUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'matjar-pg-replica-'));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const primaryDir = path.join(dir, 'primary');
  const replicaDir = path.join(dir, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const started = new Set<string>();

  const exec = (cmd: string, args: string[]) =>
    run(path.join(bin, cmd), args, { cwd: dir, ...(user ?? {}), timeout: 60_000 });
  const ctl = (dataDir: string, action: string[]) => exec('pg_ctl', ['-D', dataDir, ...action]);

  const stopSync = (): void => {
    for (const dataDir of started) {
      try {
        execFileSync(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop'], {
          ...(user ?? {}),
          stdio: 'ignore',
        });
      } catch {
        // already stopped
      }
    }
    started.clear();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stopSync);

  const settings = (port: number): string =>
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      // A throwaway cluster: durability buys nothing here and costs the test seconds.
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'shared_buffers = 16MB',
      // Seven processes of the platform (test/e2e/redis-cluster.test.ts), each with a pool per server.
      'max_connections = 120',
      'wal_level = replica',
      'max_wal_senders = 4',
      'hot_standby = on',
      '',
    ].join('\n');

  const url = (port: number, database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;

  try {
    await exec('initdb', [
      '-D',
      primaryDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '-N',
    ]);
    fs.appendFileSync(path.join(primaryDir, 'postgresql.conf'), settings(primaryPort));
    await ctl(primaryDir, ['-l', path.join(dir, 'primary.log'), '-w', 'start']);
    started.add(primaryDir);
  } catch (err) {
    stopSync();
    process.removeListener('exit', stopSync);
    throw err;
  }

  return {
    primaryUrl: (database) => url(primaryPort, database),
    replicaUrl: (database) => url(replicaPort, database),
    async startReplica() {
      await exec('pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primaryPort),
        '-U',
        'postgres',
        '-D',
        replicaDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '-N',
      ]);
      // postgresql.auto.conf is read last: the replica's own port, and the lag it holds.
      fs.appendFileSync(
        path.join(replicaDir, 'postgresql.auto.conf'),
        `${settings(replicaPort)}recovery_min_apply_delay = '${opts.applyDelayMs}ms'\n`,
      );
      await ctl(replicaDir, ['-l', path.join(dir, 'replica.log'), '-w', 'start']);
      started.add(replicaDir);
    },
    async stopReplica() {
      await ctl(replicaDir, ['-m', 'immediate', 'stop']);
      started.delete(replicaDir);
    },
    async stop() {
      await Promise.allSettled([...started].map((d) => ctl(d, ['-m', 'immediate', 'stop'])));
      started.clear();
      stopSync();
      process.removeListener('exit', stopSync);
    },
  };
}
