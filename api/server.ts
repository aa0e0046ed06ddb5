import { startupWarnings } from '../shared/config';
import { createDeps } from '../shared/deps';
import { runProcess } from '../shared/process';
import { createApp } from './app';
import { createHttpServer } from './http-server';
import { prepareLicenseAnswers } from './license/answer';

void runProcess('web', async (config, logger) => {
  const deps = await createDeps(config, { role: 'web', logger });
  // Before the first request: a /verify answer is signed from memory, also while Postgres is out.
  await prepareLicenseAnswers(deps);
  const app = createApp(deps);
  const server = createHttpServer(app, config.timeouts);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  logger.info({ port: config.port, url: config.publicBaseUrl }, `web ready on port ${config.port}`);
  for (const warning of startupWarnings(config)) logger.warn(warning);

  return {
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await deps.close();
    },
  };
});
