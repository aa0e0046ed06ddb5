import { Cluster, ClusterOptions, Command, Redis, RedisOptions } from 'ioredis';

/**
 * Every Redis connection of the platform is one of these: a plain client on REDIS_URL, or a cluster client
 * on REDIS_CLUSTER_NODES (docs/operations.md, docs/scaling.md "Redis Cluster"). Both speak the same
 * commands; what differs is that a cluster accepts a multi-key command or script only when its keys share
 * one slot (every such key of the platform carries a hash tag: `{<QUEUE_PREFIX>}` for the queues, `{rl}`
 * for rate limits and OTP guards, `{cache}` for the cache counters), and that a SCAN sees one node only.
 */
export type RedisClient = Redis | Cluster;

/** One node of REDIS_CLUSTER_NODES. */
export interface RedisNodeAddress {
  readonly host: string;
  readonly port: number;
}

/** Where Redis is: a URL, or the seed nodes of a cluster (the client discovers the rest). */
export type RedisTarget = string | readonly RedisNodeAddress[];

/** REDIS_CLUSTER_NODES when set, else REDIS_URL. */
export function redisTarget(config: {
  readonly redisUrl: string;
  readonly redisClusterNodes?: readonly RedisNodeAddress[];
}): RedisTarget {
  return config.redisClusterNodes && config.redisClusterNodes.length > 0
    ? config.redisClusterNodes
    : config.redisUrl;
}

/** The target for messages and logs: a URL with its password hidden, or `cluster host:port,...`. */
export function describeTarget(target: RedisTarget): string {
  return typeof target === 'string'
    ? redactUrl(target)
    : `cluster ${target.map((n) => `${n.host}:${n.port}`).join(',')}`;
}

/**
 * Redis connections as BullMQ's production guide recommends:
 * - `worker` (blocking connections of Workers): maxRetriesPerRequest null, so commands wait out a reconnect
 *   instead of failing the worker loop;
 * - `producer` (Queues used by the API, scheduler and workers to add jobs): offline queue off, so adding a
 *   job fails fast while Redis is down instead of hanging the HTTP request;
 * - `general` (rate limits, caches): like producer, fail fast.
 * Every kind reconnects with capped exponential back-off.
 */
export type RedisRole = 'worker' | 'producer' | 'general';

const retryStrategy = (times: number): number => Math.min(2 ** times * 100, 5_000);

export function redisOptions(role: RedisRole, commandTimeoutMs = 1_500): RedisOptions {
  if (role === 'worker') {
    return { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy };
  }
  // commandTimeout: a frozen Redis (SIGSTOP, a stuck network) keeps the socket open and answers nothing;
  // without it a command would wait for ever (docs/outages.md).
  return {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 5_000,
    commandTimeout: commandTimeoutMs,
    retryStrategy,
  };
}

/**
 * A connection of one role. On a cluster, the settings BullMQ documents for Redis Cluster (patterns,
 * "Redis Cluster"; the going-to-production guide): the role's options go to every node connection
 * (`redisOptions`: `maxRetriesPerRequest: null` for workers' blocking connections, the command timeout for
 * the others), the ready check waits for the slot map, a lost node is rediscovered with the same capped
 * back-off (`clusterRetryStrategy`), and the offline queue follows the role (producers and general
 * connections fail fast while the cluster is down, so the web tier answers 503 instead of hanging). A
 * failover (MOVED, CLUSTERDOWN, TRYAGAIN, a closed connection while a replica takes over) is retried by the
 * client every 100 ms; for the roles with a command timeout, that timeout bounds the command's whole stay
 * in the client, retries and slot-map refreshes included (`timeCommandsFromEntry`), not only its last try on one
 * node (docs/scaling.md, "Redis Cluster": how long an answer takes during a failover). Nodes on loopback or
 * inside one network need no natMap.
 */
export function createRedis(
  target: RedisTarget,
  role: RedisRole,
  name?: string,
  commandTimeoutMs?: number,
): RedisClient {
  const options = redisOptions(role, commandTimeoutMs);
  if (typeof target === 'string') {
    return new Redis(target, {
      ...options,
      // The general connection carries the hot requests' one command each (the rate-limit script): the
      // commands issued in one turn of the event loop go out in one write (ioredis's auto-pipelining)
      // instead of one write each. On loopback a write costs the sender the receiver's TCP work too, and was
      // the largest single cost of a rate-limited request (docs/performance.md). Not on a cluster, whose
      // failover timing (timeCommandsFromEntry) is set per command.
      enableAutoPipelining: role === 'general',
      connectionName: name,
      lazyConnect: false,
    });
  }
  const { retryStrategy: clusterRetryStrategy, enableOfflineQueue, ...nodeOptions } = options;
  const clusterOptions: ClusterOptions = {
    enableReadyCheck: true,
    enableOfflineQueue: enableOfflineQueue ?? true,
    clusterRetryStrategy,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    // The roles that fail fast give up a failover's retry loop after 8 tries (about 0.5 to 0.8 s, against
    // 1 to 1.5 s for ioredis's 16): a killed master's replica takes over only after cluster-node-timeout
    // and an election, so waiting longer rarely saves the command, and a request that meets the failover
    // twice (two slots) must still answer 503 within 2 s (docs/scaling.md, "Redis Cluster").
    maxRedirections: enableOfflineQueue === false ? 8 : 16,
    // Every read and write on the masters: a replica may lag, and counters must never go back.
    scaleReads: 'master',
    // CLUSTER SLOTS answers in milliseconds; a node that does not answer in 1 s is skipped for the next.
    slotsRefreshTimeout: 1_000,
    redisOptions: { ...nodeOptions, connectionName: name },
    lazyConnect: false,
  };
  const cluster = new Cluster(
    target.map((n) => ({ host: n.host, port: n.port })),
    clusterOptions,
  );
  if (nodeOptions.commandTimeout) timeCommandsFromEntry(cluster, nodeOptions.commandTimeout);
  return cluster;
}

/**
 * Starts a command's timeout when the command enters the cluster client. ioredis starts a command's timer
 * when it first reaches a node's socket; a command that meets a failover first goes round the retry loop
 * (a closed connection, a MOVED back to the dead master, CLUSTERDOWN: up to `maxRedirections`, 16, tries
 * 100 ms apart) before any node takes it, so one command could take the loop's 1.6 s and then the timeout
 * on top. A command's timer is set once (the node's own call is then a no-op): started here, the timeout
 * bounds the whole. Commands addressed to one node (pipelines, the client's own CLUSTER SLOTS) keep the
 * node's timer.
 */
function timeCommandsFromEntry(cluster: Cluster, commandTimeoutMs: number): void {
  const send = cluster.sendCommand.bind(cluster);
  cluster.sendCommand = (command: Command, stream?: unknown, node?: unknown): unknown => {
    if (!node && !stream) command.setTimeout(commandTimeoutMs);
    return send(command, stream as Parameters<Cluster['sendCommand']>[1], node);
  };
}

/** True for a cluster client. */
export function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/** Resolves once the connection is ready, or rejects with a clear message after `timeoutMs`. */
export async function waitForRedis(
  redis: RedisClient,
  target: RedisTarget,
  timeoutMs = 5_000,
): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new Error(`Redis is not reachable at ${describeTarget(target)} (no answer within ${timeoutMs} ms)`),
      );
    }, timeoutMs);
    const onReady = (): void => {
      cleanup();
      resolve();
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

/** A connection string with its password hidden, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable url)';
  }
}

/**
 * Deletes every key under `prefix` (a test run's or a benchmark's queues and counters), in batches. On a
 * cluster a SCAN sees the keys of the node it runs on only: every master is scanned, and each key is
 * unlinked on its own (one UNLINK of keys of several slots would be refused, CROSSSLOT).
 */
export async function deleteKeysWithPrefix(redis: RedisClient, prefix: string): Promise<number> {
  const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
  let deleted = 0;
  for (const node of nodes) deleted += await deleteOnNode(node, prefix, isCluster(redis));
  return deleted;
}

async function deleteOnNode(node: Redis, prefix: string, oneByOne: boolean): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length === 0) continue;
    if (!oneByOne) {
      deleted += await node.unlink(...keys);
      continue;
    }
    const pipeline = node.pipeline();
    for (const key of keys) pipeline.unlink(key);
    for (const [err, count] of (await pipeline.exec()) ?? []) if (!err) deleted += Number(count);
  } while (cursor !== '0');
  return deleted;
}
