import pino from 'pino';
import { ConfigError, loadConfig } from '../../shared/config';
import { createDeps, Deps, StartupError } from '../../shared/deps';

/**
 * The wiring of a one-shot operator command (merchant-token, fivem-secret): the environment's config and
 * one database connection, with warnings on stderr so stdout carries only the command's output. A bad
 * setting or an unreachable database is said in one line, `<command>: <reason>`, and answers null.
 */
export async function scriptDeps(command: string): Promise<Deps | null> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${command}: ${err.message}\n`);
    return null;
  }
  const logger = pino({ level: 'warn', name: command }, pino.destination({ dest: 2, sync: true }));
  try {
    return await createDeps(config, { role: 'script', logger, pool: { min: 0, max: 1 } });
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    process.stderr.write(`${command}: ${err.message}\n`);
    return null;
  }
}
