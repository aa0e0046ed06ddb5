import { expect } from 'chai';
import { createDeps } from '../../../shared/deps';
import { createLogger } from '../../../shared/logger';
import { testConfig, sharedDeps } from '../../helpers/deps';

/**
 * A green run shows only test results: when Postgres drops a pooled connection (a database dropped at the
 * end of a run, a restart), knex's "Connection Error" goes to the process's log, not to the console.
 */
describe('clean output: connection trouble goes to the log', () => {
  it('logs a dropped Postgres connection as a structured warning and prints nothing', async () => {
    const lines: string[] = [];
    const logger = createLogger('warn', 'test', { write: (line: string) => lines.push(line) });
    const deps = await createDeps(testConfig(), { role: 'test', logger, pool: { min: 0, max: 1 } });
    const printed: string[] = [];
    const original = { warn: console.warn, log: console.log, error: console.error };
    const capture = (...args: unknown[]): void => {
      printed.push(args.map(String).join(' '));
    };
    try {
      console.warn = capture;
      console.log = capture;
      console.error = capture;
      const { rows } = await deps.knex.raw<{ rows: { pid: number }[] }>('select pg_backend_pid() as pid');
      const admin = await sharedDeps();
      await admin.knex.raw('select pg_terminate_backend(?)', [rows[0].pid]);
      // The pool notices the dead connection and reports it; the next query gets a fresh one.
      for (let i = 0; i < 50 && !lines.some((l) => l.includes('"source":"knex"')); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const again = await deps.knex.raw<{ rows: { one: number }[] }>('select 1 as one');
      expect(again.rows[0].one).to.equal(1);
    } finally {
      Object.assign(console, original);
      await deps.close();
    }
    const knexLines = lines.map((l) => JSON.parse(l) as { source?: string; msg: string; level: number });
    expect(knexLines.some((l) => l.source === 'knex' && /Connection Error/.test(l.msg))).to.equal(true);
    expect(printed).to.deep.equal([]);
  });
});
