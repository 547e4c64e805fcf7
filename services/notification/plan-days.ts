import { durationMs } from './duration.ts';

const DAY_MS = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** The fields of a therapy or monitoring plan its reminders depend on. */
export interface PlanSchedule {
  readonly startDate?: unknown;
  readonly endDate?: unknown;
  /** `day`, or weekdays (`monday`, …). */
  readonly each?: unknown;
}

const dateOf = (value: unknown): Date | undefined => {
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/** `date` rounded up to a UTC midnight. */
const nextMidnight = (date: Date) => new Date(Math.ceil(date.getTime() / DAY_MS) * DAY_MS);

/**
 * The first day (a UTC midnight) at or after `from` on which the plan asks something of the
 * patient: every day with `each: ["day"]`, the listed weekdays otherwise, from its start to its
 * end date included. Undefined past the end or for a plan without start or days.
 */
export function nextPlanDay(plan: PlanSchedule, from: Date): Date | undefined {
  const start = dateOf(plan.startDate);
  const each = Array.isArray(plan.each) ? plan.each.filter((d) => typeof d === 'string') : [];
  if (!start || each.length === 0) return undefined;
  const end = dateOf(plan.endDate);
  let day = nextMidnight(new Date(Math.max(from.getTime(), start.getTime())));
  // A week holds every weekday: a plan with none of its days in the next seven has none at all.
  for (let tries = 0; tries < 7; tries++, day = new Date(day.getTime() + DAY_MS)) {
    if (end && day > end) return undefined;
    if (each.includes('day') || each.includes(WEEKDAYS[day.getUTCDay()] as string)) return day;
  }
  return undefined;
}

/**
 * When a recurring plan reminder of `schedule` (sent that long before a plan day's UTC midnight,
 * as the reference does) next expires after `after`: the expiration of the first plan day whose
 * reminder is still ahead.
 */
export function planReminder(plan: PlanSchedule, schedule: string, after: Date): Date | undefined {
  const before = durationMs(schedule);
  if (before === undefined) return undefined;
  const day = nextPlanDay(plan, new Date(after.getTime() + before + 1));
  return day && new Date(day.getTime() - before);
}
