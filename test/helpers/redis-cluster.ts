import { ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { findOrInstallRedisServer } from '../../scripts/lib/provision';

const run = promisify(execFile);

/** One redis-server of the cluster. */
export interface ClusterNodeProcess {
  readonly port: number;
  readonly dir: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now (the system's pick, closed again at once). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A port whose cluster bus port (port + 10000) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 > 65_535 || taken.has(port)) continue;
    const bus = net.createServer();
    const ok = await new Promise<boolean>((resolve) => {
      bus.once('error', () => resolve(false));
      bus.listen(port + 10_000, '127.0.0.1', () => resolve(true));
    });
    if (ok) await new Promise<void>((resolve) => bus.close(() => resolve()));
    if (ok) {
      taken.add(port);
      return port;
    }
  }
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A real Redis Cluster on loopback: `masters` masters with one replica each, Debian's `redis-server`
 * processes in temporary directories (installed through apt-get when missing, like the provisioning's),
 * joined by `redis-cli --cluster create`. A short node timeout (NODE_TIMEOUT_MS) lets a replica take over
 * a killed master within a few seconds. `stop()` kills every process and removes the directories.
 */
export class RedisCluster {
  /** How long a master may be silent before its replica takes over (cluster-node-timeout). */
  static readonly NODE_TIMEOUT_MS = 1_500;

  private constructor(
    private readonly binary: string,
    readonly nodes: ClusterNodeProcess[],
  ) {}

  static async start(masters = 3): Promise<RedisCluster> {
    const binary = await findOrInstallRedisServer(process.env.PATH ?? '', () => undefined);
    const cli = path.join(path.dirname(binary), 'redis-cli');
    const taken = new Set<number>();
    const ports: number[] = [];
    for (let i = 0; i < masters * 2; i += 1) ports.push(await freeClusterPort(taken));
    const cluster = new RedisCluster(binary, []);
    try {
      for (const port of ports) cluster.nodes.push(cluster.spawnNode(port));
      await Promise.all(ports.map((port) => until(`redis-server on ${port}`, () => ping(port))));
      await run(cli, [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ]);
      await cluster.untilHealthy();
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  private spawnNode(port: number, dir = fs.mkdtempSync(path.join(os.tmpdir(), `redis-cluster-${port}-`))) {
    const child = spawn(
      this.binary,
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
        ...['--cluster-node-timeout', String(RedisCluster.NODE_TIMEOUT_MS)],
        ...['--dir', dir, '--daemonize', 'no', '--protected-mode', 'no'],
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return { port, dir, child, exited };
  }

  /** REDIS_CLUSTER_NODES for this cluster (every node; the client needs only one to discover the rest). */
  get env(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  /** Every live node answers `cluster_state:ok` and agrees on the masters. */
  async untilHealthy(timeoutMs = 30_000): Promise<void> {
    const live = this.nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    await until(
      'the cluster to be ok on every node',
      async () => {
        const infos = await Promise.all(live.map((n) => command(n.port, 'CLUSTER', 'INFO')));
        return infos.every((info) => String(info).includes('cluster_state:ok'));
      },
      timeoutMs,
    );
  }

  /**
   * The port of the master serving `key`'s slot, and of one of its replicas. Right after a failover a
   * node's slot map may still name the old master (gossip takes a moment): the answer is taken only once
   * the master says it is one and the replica says it follows that master.
   */
  async ownerOf(key: string): Promise<{ master: number; replica: number }> {
    let owner: { master: number; replica: number } | null = null;
    await until(`a settled owner of ${key}`, async () => {
      const seen = await this.slotOwner(key);
      const [masterRole, replicaRole] = (await Promise.all([
        command(seen.master, 'ROLE'),
        command(seen.replica, 'ROLE'),
      ])) as [unknown[], unknown[]];
      if (masterRole[0] !== 'master' || replicaRole[0] !== 'slave') return false;
      if (Number(replicaRole[2]) !== seen.master) return false;
      owner = seen;
      return true;
    });
    return owner!;
  }

  /** The master and first replica of `key`'s slot in the slot map of the first live node. */
  private async slotOwner(key: string): Promise<{ master: number; replica: number }> {
    const live = this.nodes.find((n) => n.child.exitCode === null && n.child.signalCode === null)!;
    const slot = Number(await command(live.port, 'CLUSTER', 'KEYSLOT', key));
    const shards = (await command(live.port, 'CLUSTER', 'SLOTS')) as [
      number,
      number,
      ...[string, number][],
    ][];
    const shard = shards.find(([from, to]) => slot >= from && slot <= to);
    if (!shard) throw new Error(`no master serves slot ${slot}`);
    const [, , master, ...replicas] = shard;
    if (replicas.length === 0) throw new Error(`the master of slot ${slot} has no replica`);
    return { master: Number(master[1]), replica: Number(replicas[0]![1]) };
  }

  /** A manual failover: the replica asks its master to hand over, and takes over without losing a write. */
  async failover(replicaPort: number): Promise<void> {
    await command(replicaPort, 'CLUSTER', 'FAILOVER');
    await until(`node ${replicaPort} to be a master`, async () =>
      String(await command(replicaPort, 'ROLE')).startsWith('master'),
    );
  }

  /** SIGKILL of one node (no shutdown, no goodbye): its replica is promoted after the node timeout. */
  async kill9(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no node on ${port}`);
    node.child.kill('SIGKILL');
    await node.exited;
  }

  /** Resolves once `port`'s replica has become the master of its slots. */
  async untilPromoted(replicaPort: number, timeoutMs = 30_000): Promise<void> {
    await until(
      `node ${replicaPort} to be promoted`,
      async () => String(await command(replicaPort, 'ROLE')).startsWith('master'),
      timeoutMs,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
        await node.exited;
        fs.rmSync(node.dir, { recursive: true, force: true });
      }),
    );
  }
}

/** One command on one node, on a short-lived plain connection. */
async function command(port: number, ...args: string[]): Promise<unknown> {
  const redis = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1_000,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(args[0]!, ...args.slice(1));
  } finally {
    redis.disconnect();
  }
}

async function ping(port: number): Promise<boolean> {
  return (await command(port, 'PING')) === 'PONG';
}
