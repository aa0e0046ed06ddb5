import type { Knex } from 'knex';
import type { Redis } from 'ioredis';
import type { RedisClient } from './redis';
import { DependencyUnavailableError, isTransientDependencyError } from './dependency-errors';

export type BreakerDependency = 'postgres' | 'redis';
export type BreakerState = 'closed' | 'open' | 'half-open';

/**
 * SQLSTATEs that a transient failure may carry although the server answered (a serialization failure, a
 * deadlock, our own statement_timeout, too many connections): retried, but no sign of an outage.
 */
const ANSWERED_SQLSTATES = new Set(['40001', '40P01', '57014', '53300']);

function sqlstateOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth += 1) {
    const { code, nativeError, cause } = e as { code?: unknown; nativeError?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    e = nativeError ?? cause;
  }
  return undefined;
}

/** A failure that says the dependency did not answer (timed out, refused, reset), not one it answered. */
export function isOutageError(err: unknown): boolean {
  if (err instanceof DependencyUnavailableError) return false; // our own fast failure, or a request's budget
  if (!isTransientDependencyError(err)) return false;
  const code = sqlstateOf(err);
  return code === undefined || !ANSWERED_SQLSTATES.has(code);
}

/**
 * A breaker for one dependency of one process. The first call that meets an outage (a timeout, a refused
 * or reset connection) opens it: for `openMs` every call fails at once with DependencyUnavailableError
 * (503 with Retry-After on the web tier) instead of waiting out its own timeout. Then ONE call goes
 * through as a probe while the others keep failing fast; the first answer from the dependency closes the
 * breaker, an outage opens it for another window. A probe that never reports (its caller went away) is
 * followed by another one window later.
 *
 * So a request that met one timeout does not meet a second one on its next step: everything after the
 * first timeout of a dependency fails at once, across the requests of the process, until it answers again.
 */
export class CircuitBreaker {
  private opened = false;
  /** While open: when the next probe may go through. */
  private nextProbeAt = 0;
  private probing = false;
  private openings = 0;

  constructor(
    readonly dependency: BreakerDependency,
    private readonly openMs: number,
    private readonly now: () => number = Date.now,
    /** Told when the breaker opens (the process logs it), with the failure that opened it. */
    private readonly onOpen?: (dependency: BreakerDependency, err: unknown) => void,
  ) {}

  /** True when the call may go ahead (the breaker is closed, or this call is the probe). */
  admit(): boolean {
    if (!this.opened) return true;
    const now = this.now();
    if (now < this.nextProbeAt) return false;
    this.nextProbeAt = now + this.openMs;
    this.probing = true;
    return true;
  }

  /** Throws the fast failure unless the call may go ahead. */
  check(): void {
    if (!this.admit()) throw this.rejection();
  }

  rejection(): DependencyUnavailableError {
    return new DependencyUnavailableError(this.dependency);
  }

  /** The dependency answered (even with an error of its own): close. */
  succeeded(): void {
    if (!this.opened) return;
    this.opened = false;
    this.probing = false;
  }

  /** A call failed: an outage opens the breaker (again); anything else counts as an answer. */
  failed(err: unknown): void {
    if (!isOutageError(err)) {
      this.succeeded();
      return;
    }
    if (!this.opened) {
      this.openings += 1;
      this.onOpen?.(this.dependency, err);
    }
    this.opened = true;
    this.probing = false;
    this.nextProbeAt = this.now() + this.openMs;
  }

  get state(): BreakerState {
    if (!this.opened) return 'closed';
    return this.probing && this.now() < this.nextProbeAt ? 'half-open' : 'open';
  }

  /** How many times the breaker opened since the process started (a counter for metrics). */
  get timesOpened(): number {
    return this.openings;
  }
}

export interface Breakers {
  readonly postgres: CircuitBreaker;
  readonly redis: CircuitBreaker;
}

type RedisCommand = Parameters<Redis['sendCommand']>[0];

/**
 * ioredis's auto-pipelining sends the commands of one turn of the event loop as one pipeline, and holds
 * the next turn's commands until that pipeline has its answers. While the breaker probes, the probe's
 * pipeline waits out the command timeout on a frozen Redis, and every command issued meanwhile would wait
 * behind it (up to DEPENDENCY_TIMEOUT_MS) before meeting the breaker. So the connection auto-pipelines only
 * while the breaker is closed: open or probing, each command goes to `sendCommand` on its own, where the
 * breaker admits the one probe and refuses the others at once (docs/outages.md, "The web tier").
 */
function bypassAutoPipelineUnlessClosed(redis: RedisClient, breaker: CircuitBreaker): void {
  const options = redis.options as { enableAutoPipelining?: boolean };
  if (!options.enableAutoPipelining) return;
  Object.defineProperty(options, 'enableAutoPipelining', {
    configurable: true,
    enumerable: true,
    get: () => breaker.state === 'closed',
  });
}

/**
 * Every command of this connection goes through the breaker: refused at once while it is open, its
 * outcome reported when it settles. A pipeline (and MULTI) is admitted or refused as a whole, since
 * ioredis writes its commands only once all of them were handed over. Commands sent while the
 * connection is not ready (connecting, the ready check) pass untouched: without an offline queue they
 * fail at once anyway, and refusing the ready check would keep the connection from coming back.
 */
export function guardRedis(redis: RedisClient, breaker: CircuitBreaker): void {
  bypassAutoPipelineUnlessClosed(redis, breaker);
  const send = redis.sendCommand.bind(redis);
  const pipelines = new WeakMap<object, boolean>();
  redis.sendCommand = ((command: RedisCommand, stream?: unknown, node?: unknown) => {
    if (redis.status !== 'ready' || command.name === 'quit') {
      return (send as (...args: unknown[]) => unknown)(command, stream, node);
    }
    let admitted: boolean;
    if (stream && typeof stream === 'object' && (stream as { isPipeline?: boolean }).isPipeline) {
      admitted = pipelines.get(stream) ?? breaker.admit();
      pipelines.set(stream, admitted);
    } else {
      admitted = breaker.admit();
    }
    if (!admitted) {
      command.reject(breaker.rejection());
      return command.promise;
    }
    const result = (send as (...args: unknown[]) => unknown)(command, stream, node);
    command.promise.then(
      () => breaker.succeeded(),
      (err: unknown) => breaker.failed(err),
    );
    return result;
  }) as RedisClient['sendCommand'];
}

interface KnexClientInternals {
  acquireConnection(): Promise<unknown>;
}

/**
 * Every connection taken from the pool goes through the breaker (a transaction takes one for all of its
 * queries); each query's outcome is reported. With the breaker open a query fails before it waits for
 * a connection or an answer.
 */
export function guardKnex(knex: Knex, breaker: CircuitBreaker): void {
  const client = knex.client as unknown as KnexClientInternals;
  const acquire = client.acquireConnection.bind(client);
  client.acquireConnection = async () => {
    breaker.check();
    try {
      return await acquire();
    } catch (err) {
      breaker.failed(err);
      throw err;
    }
  };
  knex.on('query-response', () => breaker.succeeded());
  knex.on('query-error', (err: unknown) => breaker.failed(err));
}
