import { HotCaches, trackCounters } from './cache/versioned';
import { createServices, type Services } from './create-services';
import { unitOfWork, type UnitOfWork } from './unit-of-work';
import knexFactory, { Knex } from 'knex';
import { DatabaseTimeouts, knexConfig } from '../db/knexfile';
import type { Config } from './config';
import { Cipher } from './crypto';
import { checkSealedData, WRONG_APP_SECRET } from './services/secrets/sealed-data';
import { createLogger, Logger } from './logger';
import { createMailer, type Mailer } from './email';
import { createMessenger, Messenger } from './messaging';
import { createPaymentProviders, PaymentProviders } from './providers';
import { createStorage, StorageDriver } from './storage';
import { Breakers, CircuitBreaker, guardKnex, guardRedis } from './circuit-breaker';
import { closeQueues, createQueues, Queues } from './queues';
import { createRedis, redactUrl, RedisClient, redisTarget, waitForRedis } from './redis';
import { resolveInstanceId } from './instance-id';
import { resolveAppSecret } from './secrets';
import { ReadReplicas } from './read-replicas';
import { systemTxtResolver, type TxtResolver } from './dns';

export type ProcessRole = 'web' | 'worker' | 'scheduler' | 'script' | 'test';

/**
 * Everything a process needs, wired in one place. Handlers, processors and services receive this object
 * (or the parts of it they use); nothing reaches for a global. Models are not bound to a global knex:
 * every query names its connection (`Model.query(deps.knex)` or a transaction), and a test keeps it so
 * (test/unit/wiring.test.ts).
 */
export interface Deps {
  readonly config: Config;
  readonly role: ProcessRole;
  readonly logger: Logger;
  readonly knex: Knex;
  /**
   * Reads that tolerate a bounded lag (DATABASE_READ_URL): `readKnex.run(storeId, (knex) => ...)` runs on
   * a replica, or on `knex` when none is set, healthy, or the store just wrote (shared/read-replicas.ts).
   */
  readonly readKnex: ReadReplicas;
  /** General-purpose connection: rate limits, locks, caches. Fails fast while Redis is down. */
  readonly redis: RedisClient;
  /** Producer connection shared by every Queue. */
  readonly queueRedis: RedisClient;
  readonly queues: Queues;
  /** One breaker per dependency (web tier: calls fail at once for a while after a timeout). */
  readonly breakers: Breakers;
  readonly messenger: Messenger;
  /** EMAIL_DRIVER's mailer (docs/email.md): SMTP connections are opened by the first send. */
  readonly mailer: Mailer;
  /** The payment providers' adapters, built once per process. */
  readonly providers: PaymentProviders;
  /** Where stored files live: the `local` or `s3` driver of STORAGE_DRIVER (shared/storage, docs/downloads.md). */
  readonly storage: StorageDriver;
  /** Platform secret (HMAC key material) and the at-rest cipher derived from it. */
  readonly appSecret: string;
  /**
   * Earlier platform secrets (APP_SECRET_PREVIOUS): what was sealed or keyed under them is still read
   * (docs/security.md, "Rotating APP_SECRET"). The cipher reads through them already.
   */
  readonly appSecretPrevious: readonly string[];
  readonly cipher: Cipher;
  /** This process's hot-read caches (shared/cache/versioned.ts), one per name. */
  readonly caches: HotCaches;
  /** DNS TXT lookups (store domain verification, docs/merchant.md); tests give their own resolver. */
  readonly resolveTxt: TxtResolver;
  /** The stateful services of this process, built once (shared/create-services.ts). */
  readonly services: Services;
  /** One unit of work: a transaction and its after-commit effects (shared/unit-of-work.ts). */
  tx<T>(work: (uow: UnitOfWork) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/**
 * The web tier answers within DEPENDENCY_TIMEOUT_MS when Postgres cannot be reached (then 503); workers,
 * the scheduler and scripts run batches that may take longer, bounded by WORKER_QUERY_TIMEOUT_MS.
 */
export function databaseTimeouts(config: Config, role: ProcessRole): DatabaseTimeouts {
  const { dependencyMs, workerQueryMs } = config.timeouts;
  if (role === 'web') return { connectMs: dependencyMs, acquireMs: dependencyMs, queryMs: dependencyMs };
  return { connectMs: Math.max(dependencyMs, 5_000), acquireMs: 10_000, queryMs: workerQueryMs };
}

/** knex's own messages (a pooled connection lost, a deprecation) as structured log lines. */
function knexLog(logger: Logger): Knex.Config['log'] {
  const text = (message: unknown): string => (message instanceof Error ? message.message : String(message));
  return {
    warn: (message: unknown) => logger.warn({ source: 'knex' }, text(message)),
    error: (message: unknown) => logger.error({ source: 'knex' }, text(message)),
    deprecate: (method: string, alternative: string) =>
      logger.warn({ source: 'knex' }, `${method} is deprecated; use ${alternative}`),
    debug: (message: unknown) => logger.debug({ source: 'knex' }, text(message)),
  };
}

async function checkPostgres(knex: Knex, url: string): Promise<void> {
  try {
    await knex.raw('select 1');
  } catch (err) {
    throw new StartupError(`Postgres is not reachable at ${redactUrl(url)}: ${(err as Error).message}`);
  }
}

export async function createDeps(
  config: Config,
  opts: { role: ProcessRole; logger?: Logger; pool?: { min: number; max: number } },
): Promise<Deps> {
  const logger = opts.logger ?? createLogger(config.logLevel, opts.role);
  const knex = knexFactory({
    ...knexConfig(
      config.databaseUrl,
      opts.pool ?? { min: 0, max: config.databasePoolMax },
      databaseTimeouts(config, opts.role),
    ),
    // knex prints its pool's troubles ("Connection Error: ...") with console.warn; they go to our log instead.
    log: knexLog(logger),
  });
  const commandTimeout = config.timeouts.dependencyMs;
  // REDIS_CLUSTER_NODES when set (a cluster client), else REDIS_URL.
  const target = redisTarget(config);
  const redis = createRedis(target, 'general', `${config.queuePrefix}:${opts.role}`, commandTimeout);
  const queueRedis = createRedis(
    target,
    'producer',
    `${config.queuePrefix}:${opts.role}:queues`,
    commandTimeout,
  );
  // Unhandled 'error' events would crash the process; connection trouble is logged and retried instead.
  for (const conn of [redis, queueRedis]) {
    conn.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  }

  const readKnex = new ReadReplicas(
    knex,
    config.databaseReadUrls.map((url, i) => ({
      name: `replica ${i + 1} (${redactUrl(url)})`,
      knex: knexFactory({
        ...knexConfig(
          url,
          opts.pool ?? { min: 0, max: config.databasePoolMax },
          databaseTimeouts(config, opts.role),
        ),
        log: knexLog(logger),
      }),
    })),
    {
      redis,
      prefix: config.queuePrefix,
      maxLagMs: config.databaseReadMaxLagSeconds * 1000,
      breakerOpenMs: Math.max(config.timeouts.breakerOpenMs, 1_000),
      logger,
    },
  );

  const closeAll = async (): Promise<void> => {
    await Promise.allSettled([knex.destroy(), readKnex.close(), redis.quit(), queueRedis.quit()]);
    redis.disconnect();
    queueRedis.disconnect();
  };

  try {
    await Promise.all([
      checkPostgres(knex, config.databaseUrl),
      waitForRedis(redis, target).catch((err: Error) => {
        throw new StartupError(err.message);
      }),
      waitForRedis(queueRedis, target).catch((err: Error) => {
        throw new StartupError(err.message);
      }),
    ]);
  } catch (err) {
    await closeAll();
    throw err;
  }

  let appSecret: string;
  let instanceId: string;
  try {
    appSecret = await resolveAppSecret(knex, config.appSecret, { warn: (message) => logger.warn(message) });
    instanceId = await resolveInstanceId(knex);
  } catch (err) {
    await closeAll();
    throw new StartupError(
      `The database is not ready (${(err as Error).message}); run \`npm run db:migrate\` first`,
    );
  }
  const cipher = new Cipher(appSecret, config.appSecretPrevious);
  // A process that serves (web, worker, scheduler) refuses to start on a database whose sealed values its
  // secrets cannot open, naming APP_SECRET, instead of failing later on each one with a crypto error.
  if (opts.role === 'web' || opts.role === 'worker' || opts.role === 'scheduler') {
    let sealed: { ok: boolean };
    try {
      sealed = await checkSealedData(knex, cipher);
    } catch (err) {
      await closeAll();
      throw new StartupError(
        `The database is not ready (${(err as Error).message}); run \`npm run db:migrate\` first`,
      );
    }
    if (!sealed.ok) {
      await closeAll();
      throw new StartupError(WRONG_APP_SECRET);
    }
  }
  const queues = createQueues(queueRedis, config.queuePrefix, instanceId);
  // A Queue re-emits its connection's errors; without a listener BullMQ prints each one with
  // console.error (one unstructured line per reconnect attempt while Redis is down). The connection's
  // own listener above logs them already.
  for (const queue of Object.values(queues)) {
    queue.on('error', (err: Error) => logger.debug({ queue: queue.name, err: err.message }, 'queue error'));
  }
  const breakerOpened = (dependency: string, err: unknown): void =>
    logger.warn(
      {
        dependency,
        error: err instanceof Error ? err.message : String(err),
        openMs: config.timeouts.breakerOpenMs,
      },
      'dependency breaker opened: calls fail at once until a probe gets an answer',
    );
  const breakers: Breakers = {
    postgres: new CircuitBreaker('postgres', config.timeouts.breakerOpenMs, Date.now, breakerOpened),
    redis: new CircuitBreaker('redis', config.timeouts.breakerOpenMs, Date.now, breakerOpened),
  };
  // The web tier answers within its bound (docs/outages.md): after one timeout the dependency's calls fail
  // at once. Workers and the scheduler wait out an outage instead (their jobs are deferred).
  if (opts.role === 'web' && config.timeouts.breakerOpenMs > 0) {
    guardKnex(knex, breakers.postgres);
    guardRedis(redis, breakers.redis);
    guardRedis(queueRedis, breakers.redis);
  }
  // Services that receive only a knex bump the hot-read caches' counters through it (shared/cache).

  // Version counters answered from memory while Redis pushes their invalidations (not on a cluster).
  const tracking = trackCounters(
    target,
    { redis, config, logger },
    `${config.queuePrefix}:${opts.role}:tracking`,
  );
  const caches = new HotCaches(tracking);

  const parts = {
    config,
    role: opts.role,
    logger,
    knex,
    readKnex,
    redis,
    queueRedis,
    queues,
    breakers,
    messenger: createMessenger(config, knex),
    mailer: createMailer(config),
    providers: createPaymentProviders({ config, knex, appSecret }),
    storage: createStorage(config),
    appSecret,
    appSecretPrevious: config.appSecretPrevious,
    cipher,
    caches,
    resolveTxt: systemTxtResolver(),
  };
  const deps: Deps = {
    ...parts,
    services: createServices(parts),
    tx: (work) => unitOfWork(deps, work),
    async close() {
      await closeQueues(queues);
      parts.mailer.close();
      await tracking?.close();
      await closeAll();
    },
  };
  return deps;
}
