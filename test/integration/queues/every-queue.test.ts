import { expect } from 'chai';
import type { Deps } from '../../../shared/deps';
import { QUEUE_NAMES } from '../../../shared/queues';
import { processors } from '../../../workers/processors';
import { WorkerPool } from '../../../workers/worker-pool';
import { isolatedDeps } from '../../helpers/deps';

/** No queue without a worker, so no job can pile up unprocessed. */
describe('every queue has a worker', () => {
  let deps: Deps;
  let pool: WorkerPool | null = null;

  before(async () => {
    deps = await isolatedDeps();
  });
  after(async () => {
    await pool?.close(1_000);
  });

  it('registers a processor for every queue of shared/queues', () => {
    // Both the list of names and the queues the producers actually get (createQueues) are enumerated.
    const created = Object.keys(deps.queues).sort();
    expect(created).to.deep.equal([...QUEUE_NAMES].sort());
    const missing = created.filter((name) => !(name in processors));
    expect(missing, `queues without a processor: ${missing.join(', ')}`).to.deep.equal([]);
    for (const name of QUEUE_NAMES) {
      const processor = processors[name];
      expect(processor?.concurrency, name).to.be.a('number').and.greaterThan(0);
      expect(processor?.process, name).to.be.a('function');
    }
  });

  it('starts a real worker for every queue when WORKER_QUEUES is unset', async () => {
    pool = await WorkerPool.start(deps, { registry: processors });
    expect([...pool.queues].sort()).to.deep.equal([...QUEUE_NAMES].sort());
  });
});
