import { startupWarnings } from '../shared/config';
import { createDeps } from '../shared/deps';
import { runProcess } from '../shared/process';
import { sandboxGatewayFor } from '../shared/providers/sandbox';
import { createApp } from './app';
import { createHttpServer } from './http-server';
import { prepareLicenseAnswers } from './license/answer';

/** Time kept back from SHUTDOWN_TIMEOUT_MS to hand the sandbox's deliveries back and close connections. */
const CLEANUP_RESERVE_MS = 1_500;

void runProcess('web', async (config, logger) => {
  const deps = await createDeps(config, { role: 'web', logger });
  // Before the first request: a /verify answer is signed from memory, also while Postgres is out.
  await prepareLicenseAnswers(deps);
  const app = createApp(deps);
  const { server, drain } = createHttpServer(app, config.timeouts);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  logger.info({ port: config.port, url: config.publicBaseUrl }, `web ready on port ${config.port}`);
  for (const warning of startupWarnings(config)) logger.warn(warning);
  const sandbox = config.sandboxEnabled ? sandboxGatewayFor(deps) : null;
  // Webhook deliveries the sandbox provider handed back when a web process stopped (docs/operations.md).
  sandbox?.resumeHandedBack().then(
    (resumed) => resumed > 0 && logger.info({ resumed }, 'sandbox webhook deliveries resumed'),
    (err: Error) => logger.warn({ err: err.message }, 'sandbox webhook deliveries not resumed'),
  );

  return {
    // docs/operations.md, "Stopping": new connections refused, every accepted request answered (within
    // the deadline), idle keep-alive connections closed, then the sandbox's pending deliveries handed back.
    async stop() {
      const cut = await drain(Math.max(config.shutdownTimeoutMs - CLEANUP_RESERVE_MS, 500));
      if (cut > 0) logger.warn({ cut }, 'connections still busy at the shutdown deadline were closed');
      if (sandbox) {
        const handedBack = await sandbox.handBack().catch((err: Error) => {
          logger.error({ err: err.message }, 'sandbox webhook deliveries could not be handed back');
          return 0;
        });
        if (handedBack > 0) logger.info({ handedBack }, 'sandbox webhook deliveries handed back');
      }
      await deps.close();
    },
  };
});
