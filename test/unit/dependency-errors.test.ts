import { expect } from 'chai';
import { UnrecoverableError } from 'bullmq';
import { wrapError } from 'db-errors';
import { DBError } from 'objection';
import { DependencyUnavailableError, isTransientDependencyError } from '../../shared/dependency-errors';
import { assertMayStartWork, requestBudget } from '../../shared/request-deadline';
import { transientRetryDelay } from '../../workers/worker-pool';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });
/** The shape of pg's DatabaseError, which db-errors recognises (a SQLSTATE plus the server's fields). */
const pgError = (message: string, code: string): Error =>
  Object.assign(new Error(message), { code, severity: 'FATAL', internalQuery: undefined, table: undefined });

/** Which failures are an outage (503, job deferred) and which are not. */
describe('dependency errors', () => {
  it('recognises Postgres and Redis being out of reach', () => {
    const transient = [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
      Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('Query read timeout'),
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('the database system is starting up', '57P03'),
      withCode('canceling statement due to statement timeout', '57014'),
      withCode('connection failure', '08006'),
      new Error('Command timed out'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('Connection is closed.'),
      new Error('CLUSTERDOWN The cluster is down'),
      new Error('TRYAGAIN Multiple keys request during rehashing of slot'),
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      new Error('Failed to refresh slots cache.'),
      new Error('wrapped', { cause: withCode('read ECONNRESET', 'ECONNRESET') }),
      new DependencyUnavailableError('redis'),
    ];
    for (const err of transient) expect(isTransientDependencyError(err), err.message).to.equal(true);
  });

  it('sees through every wrapper: Objection DBError (nativeError), cause, AggregateError, nested', () => {
    // What pg raises for an admin termination, a crash shutdown, a server starting, a lost connection.
    const native = [
      pgError('terminating connection due to administrator command', '57P01'),
      pgError('terminating connection due to crash of another server process', '57P02'),
      pgError('the database system is not accepting connections', '57P03'),
      pgError('server closed the connection unexpectedly', '08006'),
      pgError('connection does not exist', '08003'),
      pgError('could not receive data from client', '08P01'),
    ];
    for (const pgError of native) {
      // Objection wraps driver errors with db-errors: the DBError has no code and no cause.
      const wrapped = wrapError(pgError);
      expect(wrapped, pgError.message).to.be.an.instanceOf(DBError);
      expect((wrapped as { code?: unknown }).code, 'DBError keeps no code').to.equal(undefined);
      // The message alone is not what is recognised: the wrappers below carry a neutral one.
      const neutral = Object.assign(new Error('query failed'), { nativeError: pgError });
      const shapes: [string, unknown][] = [
        ['objection DBError', wrapped],
        ['nativeError', neutral],
        ['cause', new Error('query failed', { cause: pgError })],
        ['cause of a DBError', new Error('job step failed', { cause: wrapped })],
        ['nativeError inside cause', new Error('outer', { cause: neutral })],
        ['AggregateError of a DBError', new AggregateError([wrapped], 'several')],
      ];
      for (const [shape, err] of shapes) {
        expect(isTransientDependencyError(err), `${pgError.message} as ${shape}`).to.equal(true);
      }
    }
    // A wrapped permanent error stays permanent.
    const unique = wrapError(pgError('duplicate key value violates unique constraint "x"', '23505'));
    expect(isTransientDependencyError(unique)).to.equal(false);
    expect(isTransientDependencyError(new Error('query failed', { cause: unique }))).to.equal(false);
  });

  it('leaves bugs, bad data and permanent failures alone', () => {
    const permanent = [
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      withCode('duplicate key value violates unique constraint "orders_checkout_id_unique"', '23505'),
      withCode('invalid input syntax for type integer', '22P02'),
      withCode('relation "nothing" does not exist', '42P01'),
      new UnrecoverableError('order 5 does not exist'),
      'a string',
      null,
    ];
    for (const err of permanent) expect(isTransientDependencyError(err), String(err)).to.equal(false);
  });

  it('defers a job by a delay that doubles per deferral, capped', () => {
    const delays = [1, 2, 3, 4, 5, 6, 12].map((started) =>
      transientRetryDelay({ attemptsStarted: started, attemptsMade: 0 }, 10_000),
    );
    expect(delays).to.deep.equal([1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
  });
});

describe('request deadline', () => {
  it('lets work start within the budget and outside any request', () => {
    expect(() => assertMayStartWork(undefined)).to.not.throw();
    expect(() => assertMayStartWork(requestBudget(10_000, () => false))).to.not.throw();
  });

  it('refuses to start work once the budget is spent or the client has gone', async () => {
    const spent = requestBudget(1, () => false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(() => assertMayStartWork(spent)).to.throw(DependencyUnavailableError, /took too long/);
    const gone = requestBudget(10_000, () => true);
    expect(() => assertMayStartWork(gone)).to.throw(DependencyUnavailableError, /client closed/);
  });
});
