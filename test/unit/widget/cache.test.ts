import { expect } from 'chai';
import { AnswerCache, freshness } from '../../../widget/src/cache';

/** How the widget keeps the product answer (widget/src/cache.ts): the page's life, or its Cache-Control. */
describe('widget answer cache', () => {
  it('reads Cache-Control: no header is the page’s life, max-age in seconds, no-store and no-cache nothing', () => {
    expect(freshness(null)).to.equal(Infinity);
    expect(freshness('')).to.equal(Infinity);
    expect(freshness('public, max-age=300')).to.equal(300_000);
    expect(freshness('no-store')).to.equal(0);
    expect(freshness('private, no-cache')).to.equal(0);
  });

  it('asks once for the page’s life when the answer says nothing, sharing a request under way', async () => {
    const cache = new AnswerCache<string>(() => 0);
    let calls = 0;
    const load = async (seen: (cc: string | null) => void): Promise<string> => {
      calls += 1;
      seen(null);
      return `answer ${calls}`;
    };
    const [a, b] = await Promise.all([cache.get('p1', load), cache.get('p1', load)]);
    expect([a, b, await cache.get('p1', load)]).to.deep.equal(['answer 1', 'answer 1', 'answer 1']);
    expect(await cache.get('p2', load)).to.equal('answer 2');
  });

  it('asks again once max-age has passed, and every time after no-store', async () => {
    let now = 0;
    const cache = new AnswerCache<number>(() => now);
    let calls = 0;
    const withHeader = (cc: string) => async (seen: (cc: string | null) => void) => {
      calls += 1;
      seen(cc);
      return calls;
    };
    expect(await cache.get('a', withHeader('max-age=60'))).to.equal(1);
    now = 59_000;
    expect(await cache.get('a', withHeader('max-age=60'))).to.equal(1);
    now = 60_000;
    expect(await cache.get('a', withHeader('max-age=60'))).to.equal(2);
    expect(await cache.get('b', withHeader('no-store'))).to.equal(3);
    expect(await cache.get('b', withHeader('no-store'))).to.equal(4);
  });

  it('forgets a failed answer, so the next try asks again', async () => {
    const cache = new AnswerCache<string>(() => 0);
    let calls = 0;
    const flaky = async (): Promise<string> => {
      calls += 1;
      if (calls === 1) throw new Error('503');
      return 'ok';
    };
    let failed = '';
    await cache.get('p', flaky).catch((err: Error) => (failed = err.message));
    expect(failed).to.equal('503');
    expect(await cache.get('p', flaky)).to.equal('ok');
    expect(calls).to.equal(2);
  });
});
