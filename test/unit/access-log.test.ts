import { expect } from 'chai';
import { accessLog } from '../../api/middleware/access-log';
import type { AppContext } from '../../api/context';
import { createLogger } from '../../shared/logger';

/** The access line's sampling at high rates (docs/performance.md "Access log"). */
describe('access log sampling', () => {
  function setup(fullPerSecond: number, sampleOneIn: number) {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', 'test', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    let clock = 1_000_000;
    const log = accessLog(logger, { fullPerSecond, sampleOneIn }, () => clock)!;
    const request = (status: number, failed = false) =>
      log(
        { status, method: 'GET', path: '/x', state: { requestId: 'r' } } as unknown as AppContext,
        '/x',
        0.001,
        failed,
      );
    return { lines, request, tick: (ms: number) => (clock += ms) };
  }

  it('writes the first lines of each second in full, then one success in N marked sampled; errors always', () => {
    const { lines, request, tick } = setup(3, 10);
    for (let i = 0; i < 23; i++) request(200);
    // 3 in full, then the 4th, 14th (one in 10 of the 20 beyond).
    expect(lines).to.have.length(5);
    expect(lines.slice(0, 3).every((l) => l.sampled === undefined)).to.equal(true);
    expect(lines.slice(3).map((l) => l.sampled)).to.deep.equal([10, 10]);

    for (let i = 0; i < 5; i++) request(404);
    request(200, true);
    request(500);
    expect(lines).to.have.length(12);
    expect(lines.slice(5).every((l) => l.sampled === undefined)).to.equal(true);

    // A new second starts in full again.
    tick(1_000);
    lines.length = 0;
    for (let i = 0; i < 3; i++) request(200);
    expect(lines).to.have.length(3);
  });

  it('writes every line when the sample is 1', () => {
    const { lines, request } = setup(0, 1);
    for (let i = 0; i < 50; i++) request(200);
    expect(lines).to.have.length(50);
    expect(lines.every((l) => l.sampled === undefined)).to.equal(true);
  });
});
