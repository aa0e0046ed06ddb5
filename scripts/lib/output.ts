import type { Readable } from 'node:stream';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every pino line carries, or that the prefix already says. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'proc']);

/**
 * A pino JSON line as `12:00:01 INFO  message key=value ...`: the processes log JSON for machines, the
 * start command shows them to a person. Anything that is not a pino line passes through unchanged.
 */
export function humanize(line: string): string {
  if (!line.startsWith('{')) return line;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (typeof entry.level !== 'number' || typeof entry.msg !== 'string') return line;
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const extra = Object.entries(entry)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [time, LEVELS[entry.level] ?? String(entry.level), entry.msg, ...extra].filter(Boolean).join(' ');
}

/** Calls `onLine` for every complete line of `stream` (and the unterminated rest at its end). */
export function eachLine(stream: Readable, onLine: (line: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line.replace(/\r$/, ''));
  });
  stream.on('end', () => {
    if (pending) onLine(pending);
    pending = '';
  });
}

/** `name` padded to the width of the longest process name, so the `|` columns line up. */
export function prefixFor(name: string, width = 9): string {
  return `${name.padEnd(width)}| `;
}

/** A framed block of `rows` (label, value) for the terminal. */
export function box(title: string, rows: ReadonlyArray<readonly [string, string]>): string {
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.map(([label, value]) =>
    label || value ? `${label.padEnd(labelWidth)}  ${value}`.trimEnd() : '',
  );
  const width = Math.max(title.length, ...lines.map((l) => l.length)) + 2;
  const bar = '─'.repeat(width);
  return [
    `┌${bar}┐`,
    `│ ${title.padEnd(width - 1)}│`,
    `├${bar}┤`,
    ...lines.map((l) => `│ ${l.padEnd(width - 1)}│`),
    `└${bar}┘`,
  ].join('\n');
}

export function seconds(sinceMs: number): string {
  return `${((Date.now() - sinceMs) / 1000).toFixed(1)} s`;
}
