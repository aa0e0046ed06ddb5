import crypto from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { waitFor } from '../integration/queues/support';
import { testRedisUrl } from './env';

export interface RedisMonitor {
  /**
   * The commands naming a key under the prefix that clients sent while `fn` ran (MONITOR lines; one per
   * round trip, but a pipeline or MULTI shows each of its commands).
   */
  commandsDuring(fn: () => Promise<void>): Promise<string[]>;
  /** The ids of the clients whose connection name contains `name`. */
  clientIds(name: string): Promise<string[]>;
  /** Closes the client connection with this id (as a network drop would). */
  kill(id: string): Promise<void>;
  close(): void;
}

/**
 * Counts the Redis commands of one key prefix with MONITOR (on a socket of its own: every command the
 * server runs, one line each). MONITOR lags behind the commands, so a window is bounded by two markers
 * (a GET of a key of the test's own) seen in the stream.
 */
export async function monitorRedis(prefix: string): Promise<RedisMonitor> {
  const url = new URL(testRedisUrl);
  const admin = new Redis(testRedisUrl);
  const socket = net.connect(Number(url.port || 6379), url.hostname);
  const seen: string[] = [];
  let pending = '';
  socket.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\r\n');
    pending = lines.pop() ?? '';
    // Commands a script runs are shown as from `lua`: they are part of the script's one round trip.
    for (const line of lines) if (line.includes(`"${prefix}:`) && !/\[\d+ lua\]/.test(line)) seen.push(line);
  });
  socket.write('MONITOR\r\n');

  const mark = async (): Promise<string> => {
    const marker = `${prefix}:monitor-marker:${crypto.randomBytes(4).toString('hex')}`;
    await admin.get(marker);
    await waitFor(
      'the marker in MONITOR',
      async () => seen.some((line) => line.includes(marker)) || undefined,
    );
    return marker;
  };
  await mark();

  return {
    async commandsDuring(fn) {
      await mark();
      seen.length = 0;
      await fn();
      const marker = await mark();
      return seen.filter((line) => !line.includes(marker));
    },
    async clientIds(name) {
      const list = (await admin.client('LIST')) as string;
      return list
        .split('\n')
        .filter((line) => new RegExp(`name=\\S*${name.replace(/[{}.*+?^$()|[\]\\]/g, '\\$&')}`).test(line))
        .map((line) => /id=(\d+)/.exec(line)![1]!);
    },
    async kill(id) {
      await admin.client('KILL', 'ID', id);
    },
    close() {
      socket.destroy();
      admin.disconnect();
    },
  };
}
