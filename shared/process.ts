import { ConfigError, loadConfig, Config } from './config';
import { StartupError } from './deps';
import { createLogger, Logger } from './logger';

export interface Running {
  /** Stops taking new work, finishes or hands back in-flight work, closes connections. */
  stop(): Promise<void>;
}

/**
 * Shared entry point of the web, worker and scheduler processes: loads the config (a bad value exits 1
 * naming the variable), starts, logs one line when ready, and on SIGTERM/SIGINT stops within the
 * configured deadline and exits 0.
 */
export async function runProcess(
  name: string,
  start: (config: Config, logger: Logger) => Promise<Running>,
): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${name}: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel, name);

  let running: Running;
  try {
    running = await start(config, logger);
  } catch (err) {
    const message = err instanceof StartupError ? err.message : `failed to start: ${(err as Error).message}`;
    logger.fatal(message);
    process.stderr.write(`${name}: ${message}\n`);
    process.exit(1);
  }

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${name} stopping`);
    const deadline = setTimeout(() => {
      logger.error(`${name} did not stop within ${config.shutdownTimeoutMs} ms; exiting`);
      process.exit(1);
    }, config.shutdownTimeoutMs + 1_500);
    deadline.unref();
    running
      .stop()
      .then(() => {
        logger.info(`${name} stopped`);
        process.exit(0);
      })
      .catch((err: Error) => {
        logger.error({ err: err.message }, `${name} stop failed`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
