import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EVENT_TYPES, SUBSCRIBERS } from '../../shared/events/subscribers';
import { MERCHANT_EVENT_TYPES } from '../../shared/services/webhooks/events';
import { WEBHOOK_EVENTS } from '../../api/openapi/webhooks';

/**
 * One way to emit an event (shared/events): a writer emits through its unit of work's `emit`, whose
 * subscribers, declared in shared/events/subscribers.ts, write the webhook deliveries and stage the jobs in
 * the same transaction. This test reads the source tree so that it stays so.
 */
const ROOT = join(__dirname, '..', '..');
const SCANNED = ['shared', 'api', 'workers', 'scripts'];
/** The events module: the only place that records a merchant webhook delivery. */
const EVENTS_MODULE = 'shared/events/';
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const files = SCANNED.flatMap((d) => sources(join(ROOT, d))).map((path) => ({
  name: relative(ROOT, path).split('\\').join('/'),
  text: readFileSync(path, 'utf8'),
}));

/** The direct `enqueue(` calls of `text` without a comment saying why no transaction exists there. */
export function unexplainedEnqueues(text: string): number[] {
  const lines = text.split('\n');
  const found: number[] = [];
  lines.forEach((line, i) => {
    if (!/\bawait enqueue\(/.test(line)) return;
    const before = lines.slice(Math.max(0, i - 8), i).join('\n');
    if (!/no transaction/i.test(before)) found.push(i + 1);
  });
  return found;
}

describe('one way to emit an event', () => {
  it('every event type has its subscribers declared, the merchant webhook among them', () => {
    expect([...EVENT_TYPES].sort()).to.deep.equal([...Object.keys(SUBSCRIBERS)].sort());
    for (const type of EVENT_TYPES) {
      const declared = SUBSCRIBERS[type];
      expect(declared, type).to.be.an('array').that.is.not.empty;
      expect(
        declared.map((s) => s.name).some((n) => n.startsWith('merchant webhook')),
        type,
      ).to.equal(true);
    }
    // Every webhook event the OpenAPI document promises is one of them.
    expect(Object.keys(WEBHOOK_EVENTS).sort()).to.deep.equal([...MERCHANT_EVENT_TYPES].sort());
  });

  it('no writer records a merchant webhook delivery outside the events module', () => {
    const offenders = files
      .filter((f) => !f.name.startsWith(EVENTS_MODULE))
      .filter((f) => /\brecordMerchantEvent\b|\bstageDeliveries\b/.test(f.text))
      .map((f) => f.name);
    expect(offenders).to.deep.equal([]);
  });

  it('no effect bag: refunds emit their events like every other writer', () => {
    const offenders = files
      .filter((f) => /\b(RefundEffects|newRefundEffects|afterRefunds)\b/.test(f.text))
      .map((f) => f.name);
    expect(offenders).to.deep.equal([]);
  });

  it('every remaining direct enqueue says why no transaction exists there', () => {
    expect(
      unexplainedEnqueues('// nothing is written: no transaction exists\nawait enqueue(q, "x", {});'),
    ).to.deep.equal([]);
    expect(unexplainedEnqueues('await enqueue(q, "x", {});')).to.deep.equal([1]);
    const offenders = files
      .filter((f) => f.name !== 'shared/queues/index.ts')
      .flatMap((f) => unexplainedEnqueues(f.text).map((line) => `${f.name}:${line}`));
    expect(offenders).to.deep.equal([]);
  });
});
