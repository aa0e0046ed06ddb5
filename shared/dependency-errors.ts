import { DomainError } from './errors';

/**
 * Postgres or Redis could not be reached in time (refused, reset, timed out, restarting). The API answers
 * it as 503 with Retry-After; a job that meets it is delayed and tried again without spending an attempt.
 */
export class DependencyUnavailableError extends DomainError {
  constructor(
    readonly dependency: 'postgres' | 'redis' | 'request',
    message = 'Service temporarily unavailable. Please try again later.',
  ) {
    super('UNAVAILABLE', message);
  }
}

/** What a 503 tells clients to wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/** Socket-level codes of a dependency that is down, restarting or unreachable. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTCONN',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/**
 * Postgres SQLSTATEs that mean "try again later": connection exceptions (class 08), the server shutting
 * down or starting (57P01-57P03), too many connections (53300), a statement cancelled by our own
 * statement_timeout (57014), serialization failures and deadlocks (40001, 40P01).
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '40001', '40P01']);

/** Messages of pg, knex/tarn and ioredis for a connection or command that did not get through. */
const TRANSIENT_MESSAGES = [
  /Connection terminated/i, // pg: server went away mid-query or during connect
  /connection timeout/i, // pg: connectionTimeoutMillis
  /Query read timeout/i, // pg: query_timeout
  /Timeout acquiring a connection/i, // knex: acquireConnectionTimeout (pool exhausted or server unreachable)
  /Client has encountered a connection error/i, // pg
  /terminating connection due to administrator command/i, // pg_terminate_backend, a fast shutdown (57P01)
  /Connection is closed/i, // ioredis
  /Command timed out/i, // ioredis: commandTimeout
  /Stream isn't writeable/i, // ioredis: offline queue off while disconnected
  /Reached the max retries per request limit/i, // ioredis: MaxRetriesPerRequestError
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /LOADING Redis is loading/i,
  // ioredis in Cluster mode while a master fails over, once its own redirections and retries are spent.
  /CLUSTERDOWN/,
  /TRYAGAIN/,
  /Too many Cluster redirections/i,
  /Failed to refresh slots cache/i,
  /None of startup nodes is available/i,
];

/** Errors of outside services (payment providers, messaging), whatever connection error caused them. */
const EXTERNAL_SERVICE_ERRORS = new Set([
  'ProviderUnavailableError',
  'ProviderRejectedError',
  'RetryableDeliveryError',
  'PermanentDeliveryError',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  errors?: unknown;
  cause?: unknown;
  /** Objection's DBError (db-errors) keeps the driver's error here, with neither `code` nor `cause`. */
  nativeError?: unknown;
}

/**
 * True for an error that says a dependency (Postgres, Redis) was briefly out of reach, as opposed to a
 * bug or bad data. Follows the wrappers: `cause`, Objection's `nativeError` (its DBError carries neither
 * the SQLSTATE nor a cause) and AggregateError members (Node's happy-eyeballs connect errors).
 */
export function isTransientDependencyError(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 4) return false;
  if (err instanceof DependencyUnavailableError) return true;
  const e = err as ErrorLike;
  // A payment provider or Twilio out of reach is not our dependency: those jobs retry with their queue's
  // back-off and end in the failed set, where an operator retries them (docs/runbook.md).
  if (typeof e.name === 'string' && EXTERNAL_SERVICE_ERRORS.has(e.name)) return false;
  if (e.name === 'KnexTimeoutError') return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.code === 'string') {
    if (NETWORK_CODES.has(e.code)) return true;
    if (TRANSIENT_SQLSTATES.has(e.code) || e.code.startsWith('08')) return true;
  }
  if (typeof e.message === 'string' && TRANSIENT_MESSAGES.some((re) => re.test(e.message as string)))
    return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isTransientDependencyError(inner, depth + 1)))
    return true;
  if (isTransientDependencyError(e.nativeError, depth + 1)) return true;
  return isTransientDependencyError(e.cause, depth + 1);
}
