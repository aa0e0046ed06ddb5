/**
 * A store's wall-clock time (`stores.time_zone`, an IANA zone) and the instants the platform stores (UTC).
 * The dashboard's `datetime-local` inputs hold the store's wall time: a coupon that ends "1 December,
 * 00:00" in Asia/Riyadh ends at 2026-11-30T21:00:00Z, and is shown back as 00:00.
 */

const LOCAL_INPUT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** The zone's wall-clock fields at `at`, as if they were UTC (milliseconds). */
function wallClockMs(at: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(at));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
}

/** Whether `value` is a `datetime-local` value (`2026-12-01T00:00`, seconds optional). */
export const isLocalInput = (value: string): boolean => LOCAL_INPUT.test(value);

/**
 * The instant (ISO, UTC) at which the zone's clocks read `value` (a `datetime-local` value); null when
 * `value` is not one. A wall time skipped by a daylight-saving jump is read with the offset before it.
 */
export function localInputToUtc(value: string, timeZone: string): string | null {
  const m = LOCAL_INPUT.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, se] = m;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se ?? 0));
  // A day or hour out of range (2026-02-30, 25:00) would roll over into another date: refused instead.
  const back = new Date(wall);
  if (
    back.getUTCFullYear() !== Number(y) ||
    back.getUTCMonth() !== Number(mo) - 1 ||
    back.getUTCDate() !== Number(d) ||
    back.getUTCHours() !== Number(h) ||
    back.getUTCMinutes() !== Number(mi)
  ) {
    return null;
  }
  // The offset at the guess, then again at the corrected instant (they differ across a DST change).
  let at = wall - (wallClockMs(wall, timeZone) - wall);
  at = wall - (wallClockMs(at, timeZone) - at);
  const date = new Date(at);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The `datetime-local` value (`2026-12-01T00:00`) the zone's clocks read at `at`. */
export function utcToLocalInput(at: Date | string, timeZone: string): string {
  const ms = wallClockMs(new Date(at).getTime(), timeZone);
  return new Date(ms).toISOString().slice(0, 16);
}
