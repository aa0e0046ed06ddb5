import { expect } from 'chai';
import { loadConfig } from '../../shared/config';
import { jobLockSettings } from '../../workers/worker-pool';

/**
 * A killed worker's jobs come back within 30 s in production (docs/outages.md, "Workers"): the lock lapses
 * at most `lockDuration` after the kill and the next stalled-job check, at most `stalledInterval` later,
 * returns the job to the wait list.
 */
describe('job lock settings (production defaults)', () => {
  it('uses a 15 s lock and a 10 s stalled-job check when nothing is set', () => {
    const settings = jobLockSettings(loadConfig({ NODE_ENV: 'test' }).timeouts.jobLockMs);
    expect(settings).to.deep.equal({ lockDuration: 15_000, stalledInterval: 10_000, maxStalledCount: 10 });
  });

  it('brings a killed worker’s job back within 30 s at the defaults', () => {
    const { lockDuration, stalledInterval } = jobLockSettings(loadConfig({}).timeouts.jobLockMs);
    expect(Number(lockDuration) + Number(stalledInterval)).to.be.at.most(30_000);
  });

  it('scales the stalled-job check with JOB_LOCK_DURATION_MS (tests shorten both)', () => {
    const settings = jobLockSettings(loadConfig({ JOB_LOCK_DURATION_MS: '1500' }).timeouts.jobLockMs);
    expect(settings).to.include({ lockDuration: 1_500, stalledInterval: 1_000 });
  });
});
