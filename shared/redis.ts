import { Redis, RedisOptions } from 'ioredis';

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

export function redisOptions(role: RedisRole, commandTimeoutMs = 1_500): RedisOptions {
  const retryStrategy = (times: number): number => Math.min(2 ** times * 100, 5_000);
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

export function createRedis(url: string, role: RedisRole, name?: string, commandTimeoutMs?: number): Redis {
  return new Redis(url, {
    ...redisOptions(role, commandTimeoutMs),
    connectionName: name,
    lazyConnect: false,
  });
}

/** Resolves once the connection is ready, or rejects with a clear message after `timeoutMs`. */
export async function waitForRedis(redis: Redis, url: string, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis is not reachable at ${redactUrl(url)} (no answer within ${timeoutMs} ms)`));
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

/** Deletes every key under `prefix` (a test run's or a benchmark's queues and counters), in batches. */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
