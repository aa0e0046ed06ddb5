import pino, { DestinationStream, Logger } from 'pino';

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

/** `destination` defaults to stdout; tests pass a stream to read what would be logged. */
export function createLogger(level: string, name?: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    name,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: name ? { proc: name } : undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}
