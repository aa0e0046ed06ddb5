/**
 * Answers kept for the page's life, or for as long as their `Cache-Control` allows (`max-age`; nothing
 * with `no-store` or `no-cache`). A failed answer is forgotten, so the next try asks again. No DOM here:
 * tested in test/unit/widget/cache.test.ts.
 */

/** How long an answer with this Cache-Control may be reused, in ms. */
export function freshness(cacheControl: string | null): number {
  const cc = cacheControl ?? '';
  if (/no-store|no-cache/i.test(cc)) return 0;
  const maxAge = /max-age=(\d+)/i.exec(cc);
  return maxAge ? Number(maxAge[1]) * 1000 : Infinity;
}

export class AnswerCache<T> {
  private readonly entries = new Map<string, { until: number; answer: Promise<T> }>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The kept answer for `key`, else `load`'s, which calls `seen` with the answer's Cache-Control. Callers
   * that ask while the first request is under way share it.
   */
  get(key: string, load: (seen: (cacheControl: string | null) => void) => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && this.now() < hit.until) return hit.answer;
    const started = this.now();
    const entry = { until: Infinity, answer: null as unknown as Promise<T> };
    entry.answer = load((cc) => (entry.until = started + freshness(cc)));
    entry.answer.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    this.entries.set(key, entry);
    return entry.answer;
  }

  /** Drops the kept answer for `key`: the next `get` asks again. */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
