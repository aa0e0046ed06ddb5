import type { Knex } from 'knex';
import type { RedisClient } from './redis';
import { CircuitBreaker, isOutageError } from './circuit-breaker';

/**
 * Reads that tolerate a bounded lag on Postgres streaming replicas (DATABASE_READ_URL, docs/scaling.md
 * "Postgres read replicas"). Only the reads a caller hands to `run` go there; everything else, every write
 * and every transaction stays on the primary (`deps.knex`).
 *
 * Three rules keep a replica's answers honest:
 * - Bounded lag. A health check asks each replica every second how far behind it is; one more than
 *   DATABASE_READ_MAX_LAG_SECONDS behind (or unreachable) is not read until it catches up.
 * - Read your writes. A write through the Merchant API (api/guards.ts) opens a window of the same length
 *   for its store, kept in Redis so every web process sees it: the store's reads go to the primary until
 *   any replica that may still be read has the write.
 * - Never an error. A read that fails on a replica runs again on the primary (reads are safe to repeat);
 *   a replica that did not answer opens its breaker, so the next reads skip it without waiting.
 *
 * Without DATABASE_READ_URL every read runs on the primary and nothing of this costs a round trip.
 */

export interface ReadReplicaOptions {
  /** Redis for the read-your-writes windows, and the key prefix (QUEUE_PREFIX). */
  redis: RedisClient;
  prefix: string;
  maxLagMs: number;
  /** How long a replica that did not answer is skipped before one read probes it again. */
  breakerOpenMs: number;
  /** 0 turns the periodic health check off (a test drives `checkHealth` itself). */
  healthIntervalMs?: number;
  logger?: { warn(obj: object, msg: string): void };
  now?: () => number;
}

interface Replica {
  readonly name: string;
  readonly knex: Knex;
  readonly breaker: CircuitBreaker;
  /** Replay lag seen by the last health check; Infinity before the first check or when unknown. */
  lagMs: number;
}

/** The replica's lag: 0 when it replayed all it received, else how old its last replayed commit is. */
const LAG_SQL = `select pg_is_in_recovery() as in_recovery,
  case when pg_last_wal_receive_lsn() is not distinct from pg_last_wal_replay_lsn() then 0
       else (extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::bigint
  end as lag_ms`;

export type ReadTarget = 'replica' | 'primary';

export class ReadReplicas {
  private readonly replicas: Replica[];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly primary: Knex,
    replicas: readonly { name: string; knex: Knex }[],
    private readonly options: ReadReplicaOptions,
  ) {
    const now = options.now ?? Date.now;
    this.replicas = replicas.map((r) => ({
      ...r,
      lagMs: Infinity,
      breaker: new CircuitBreaker('postgres', options.breakerOpenMs, now, (_dep, err) =>
        options.logger?.warn(
          { replica: r.name, error: err instanceof Error ? err.message : String(err) },
          'read replica unreachable: its reads go to the primary',
        ),
      ),
    }));
    const interval = options.healthIntervalMs ?? 1_000;
    if (this.replicas.length > 0 && interval > 0) {
      this.timer = setInterval(() => void this.checkHealth(), interval);
      this.timer.unref();
      void this.checkHealth();
    }
  }

  /** True when DATABASE_READ_URL names at least one replica. */
  get configured(): boolean {
    return this.replicas.length > 0;
  }

  /**
   * Runs a read that tolerates DATABASE_READ_MAX_LAG_SECONDS of lag, for `storeId`'s figures: on a
   * healthy replica unless the store wrote within that window, else (or should the replica fail) on the
   * primary. `read` must not write; it may run twice.
   */
  async run<T>(storeId: number | null, read: (knex: Knex) => Promise<T>): Promise<T> {
    const replica = await this.pick(storeId);
    if (!replica) return read(this.primary);
    try {
      const out = await read(replica.knex);
      replica.breaker.succeeded();
      return out;
    } catch (err) {
      replica.breaker.failed(err);
      if (!isOutageError(err)) {
        this.options.logger?.warn(
          { replica: replica.name, error: (err as Error).message },
          'read failed on a replica; running it on the primary',
        );
      } else replica.lagMs = Infinity;
      return read(this.primary);
    }
  }

  /** Where `run` would send a read for this store now (for tests and the operator's metrics). */
  async target(storeId: number | null): Promise<ReadTarget> {
    return (await this.pick(storeId)) ? 'replica' : 'primary';
  }

  /**
   * A write for this store committed (or may have): its lag-tolerant reads go to the primary for the
   * window. Cheap and safe to call for every write request; a Redis failure is not the write's failure.
   */
  async noteWrite(storeId: number): Promise<void> {
    if (!this.configured) return;
    try {
      await this.options.redis.set(this.windowKey(storeId), '1', 'PX', this.options.maxLagMs);
    } catch (err) {
      this.options.logger?.warn(
        { storeId, error: (err as Error).message },
        'read-your-writes window not recorded; reads may lag',
      );
    }
  }

  /** Asks every replica how far behind it is; one that does not answer is skipped until it does. */
  checkHealth(): Promise<void> {
    this.checking ??= Promise.all(
      this.replicas.map(async (replica) => {
        try {
          const { rows } = await replica.knex.raw<{
            rows: { in_recovery: boolean; lag_ms: string | number | null }[];
          }>(LAG_SQL);
          const row = rows[0];
          // A server that left recovery (promoted) is no longer fed by the primary: never read it.
          replica.lagMs = row?.in_recovery && row.lag_ms !== null ? Number(row.lag_ms) : Infinity;
          replica.breaker.succeeded();
        } catch (err) {
          replica.lagMs = Infinity;
          replica.breaker.failed(err);
        }
      }),
    ).then(
      () => {
        this.checking = null;
      },
      () => {
        this.checking = null;
      },
    );
    return this.checking;
  }

  /** The last health check's lag per replica, in milliseconds (Infinity: not read). */
  lags(): { name: string; lagMs: number; state: string }[] {
    return this.replicas.map((r) => ({ name: r.name, lagMs: r.lagMs, state: r.breaker.state }));
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled(this.replicas.map((r) => r.knex.destroy()));
  }

  private windowKey(storeId: number): string {
    return `${this.options.prefix}:rw:store:${storeId}`;
  }

  private async pick(storeId: number | null): Promise<Replica | null> {
    const usable = this.replicas.filter((r) => r.lagMs <= this.options.maxLagMs);
    if (usable.length === 0) return null;
    if (storeId !== null) {
      try {
        if ((await this.options.redis.exists(this.windowKey(storeId))) > 0) return null;
      } catch {
        return null; // the window cannot be checked: the primary is always right
      }
    }
    for (let i = 0; i < usable.length; i += 1) {
      const replica = usable[(this.next + i) % usable.length]!;
      if (replica.breaker.admit()) {
        this.next = (this.next + i + 1) % usable.length;
        return replica;
      }
    }
    return null;
  }
}
