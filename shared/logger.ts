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

/**
 * Capability paths (the path segment is the credential) and bearer-like tokens, scrubbed from every
 * serialized line whatever field they sit in: an unmatched route's path, an error message, a URL.
 * Route patterns (`/pay/:checkoutUrl`) are left alone: their segments start with `:`.
 */
const SEGMENT = String.raw`[^"\s/?#:][^"\s/?#]*`;
const SCRUB: readonly [RegExp, string][] = [
  [new RegExp(String.raw`(/pay/payments/)${SEGMENT}`, 'g'), '$1[redacted]'],
  [new RegExp(String.raw`(/pay/)(?!payments/)${SEGMENT}`, 'g'), '$1[redacted]'],
  [new RegExp(String.raw`(/api/embed/payment/status/)${SEGMENT}`, 'g'), '$1[redacted]'],
  [new RegExp(String.raw`(/sandbox/checkout/)${SEGMENT}`, 'g'), '$1[redacted]'],
  [/(Bearer\s+)[^"\s]+/gi, '$1[redacted]'],
  [/\b(cet|cst|mt)_[A-Za-z0-9_-]{12,}/g, '$1_[redacted]'],
  [/([?&](?:embed_key|token|checkout_url|access_token)=)[^"&\s#]+/gi, '$1[redacted]'],
];

/**
 * Whether a line may hold anything SCRUB replaces (a capability path's segment, not a route pattern's
 * `:name`; a token's prefix): one pass instead of seven for most lines.
 */
const MAYBE_SECRET =
  /\/(?:pay|payment\/status|sandbox\/checkout)\/[^"\s/?#:]|bearer|(?:cet|cst|mt)_|[?&](?:embed_key|token|checkout_url|access_token)=/i;

/** Every capability path and token in a serialized log line, replaced by `[redacted]`. */
export function scrubSecrets(line: string): string {
  if (!MAYBE_SECRET.test(line)) return line;
  let out = line;
  for (const [pattern, replacement] of SCRUB) out = out.replace(pattern, replacement);
  return out;
}

/** `destination` defaults to stdout; tests pass a stream to read what would be logged. */
export function createLogger(level: string, name?: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    name,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: name ? { proc: name } : undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: scrubSecrets },
  };
  // stdout is written asynchronously: lines logged while a write is under way go out together in the
  // next one, so a busy web process does not pay a write(2) per request. Nothing waits for a buffer to
  // fill (a line goes out at once when no write is pending), and pino flushes what is left when the
  // process exits.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
