import { expect } from 'chai';
import { CircuitBreaker, isOutageError } from '../../shared/circuit-breaker';
import { DependencyUnavailableError } from '../../shared/dependency-errors';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('circuit breaker', () => {
  let now: number;
  let breaker: CircuitBreaker;
  beforeEach(() => {
    now = 1_000_000;
    breaker = new CircuitBreaker('redis', 2_000, () => now);
  });

  it('opens on the first timeout: calls fail at once until the window passes, then one probe goes', () => {
    expect(breaker.admit()).to.equal(true);
    breaker.failed(new Error('Command timed out'));
    expect(breaker.state).to.equal('open');
    expect(breaker.admit()).to.equal(false);
    expect(() => breaker.check()).to.throw(DependencyUnavailableError);
    now += 1_999;
    expect(breaker.admit()).to.equal(false);
    now += 1;
    expect(breaker.admit(), 'the probe').to.equal(true);
    expect(breaker.state).to.equal('half-open');
    expect(breaker.admit(), 'others while the probe is out').to.equal(false);
    breaker.failed(new Error('Command timed out'));
    expect(breaker.state).to.equal('open');
    now += 2_000;
    expect(breaker.admit(), 'the next probe').to.equal(true);
    breaker.succeeded();
    expect(breaker.state).to.equal('closed');
    expect(breaker.admit()).to.equal(true);
    expect(breaker.timesOpened).to.equal(1);
  });

  it('sends another probe when one never reports', () => {
    breaker.failed(withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'));
    now += 2_000;
    expect(breaker.admit()).to.equal(true);
    now += 1_000;
    expect(breaker.admit()).to.equal(false);
    now += 1_000;
    expect(breaker.admit()).to.equal(true);
  });

  it('counts an answer of the dependency, even an error, as the dependency being back', () => {
    breaker.failed(new Error('Query read timeout'));
    expect(breaker.state).to.equal('open');
    breaker.failed(withCode('duplicate key value violates unique constraint "x"', '23505'));
    expect(breaker.state).to.equal('closed');
  });

  it('is opened by outages only, not by errors the server answered or by its own refusals', () => {
    const outages = [
      new Error('Command timed out'),
      new Error('Query read timeout'),
      Object.assign(new Error('Knex: Timeout acquiring a connection.'), { name: 'KnexTimeoutError' }),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      Object.assign(new Error('query failed'), {
        nativeError: withCode('terminating connection due to administrator command', '57P01'),
      }),
    ];
    for (const err of outages) expect(isOutageError(err), err.message).to.equal(true);
    const answered = [
      withCode('could not serialize access', '40001'),
      withCode('deadlock detected', '40P01'),
      withCode('canceling statement due to statement timeout', '57014'),
      new DependencyUnavailableError('redis'),
      new TypeError('x is undefined'),
    ];
    for (const err of answered) expect(isOutageError(err), err.message).to.equal(false);
  });
});
