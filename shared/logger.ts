import pino, { Logger } from 'pino';

export type { Logger };

/**
 * Secrets never reach the logs: these paths are censored wherever they appear in a log object.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-embed-key"]',
  'req.headers["x-fivem-secret"]',
  'req.headers.cookie',
  '*.password',
  '*.token',
  '*.code',
  '*.secret',
  '*.authToken',
  '*.secret_key',
  'authorization',
];

export function createLogger(level: string, name?: string): Logger {
  return pino({
    level,
    name,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: name ? { proc: name } : undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
