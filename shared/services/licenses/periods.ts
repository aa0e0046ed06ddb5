import type { PlanDuration } from '../../../db/models';

const MONTHS: Record<Exclude<PlanDuration, 'lifetime'>, number> = { monthly: 1, quarterly: 3, yearly: 12 };

/**
 * `date` plus `months` calendar months in UTC, clamped to the end of a shorter month (31 January + 1 month
 * is 28 or 29 February, not 3 March), keeping the time of day.
 */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d;
}

/** When a period of `duration` starting at `start` ends: null for lifetime (and for no plan at all). */
export function periodEnd(start: Date, duration: PlanDuration | null | undefined): Date | null {
  if (!duration || duration === 'lifetime') return null;
  return addMonths(start, MONTHS[duration]);
}
