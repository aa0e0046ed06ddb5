import { Queue } from 'bullmq';
import type { Deps } from '../../../shared/deps';
import { bullPrefix } from '../../../shared/queues';

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A scratch queue under the deps' prefix, for tests that need a processor of their own. */
export function scratchQueue(deps: Deps, name: string): Queue {
  return new Queue(name, { connection: deps.queueRedis, prefix: bullPrefix(deps.config.queuePrefix) });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
