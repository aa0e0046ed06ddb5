import { createDeps } from '../shared/deps';
import { runProcess } from '../shared/process';
import { Scheduler } from '../shared/scheduler';

/**
 * The `scheduler` process (docs/operations.md): node-cron tasks that only enqueue maintenance jobs with
 * per-tick job ids, so running several schedulers at once still yields one job per tick.
 */
void runProcess('scheduler', async (config, logger) => {
  const deps = await createDeps(config, { role: 'scheduler', logger });
  const scheduler = new Scheduler(deps);
  scheduler.start();
  const summary = scheduler.schedule.map((e) => `${e.task} (${e.cron})`).join(', ');
  logger.info({ tasks: scheduler.schedule }, `scheduler ready: ${summary}`);

  return {
    async stop() {
      await scheduler.stop();
      await deps.close();
    },
  };
});
