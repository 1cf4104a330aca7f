/**
 * Instalment schedules (docs/api.md section 9), pure: dates as `YYYY-MM-DD` strings in UTC,
 * amounts in integer minor units. Monthly dates follow the calendar: each instalment falls on the
 * start day of its month, or on the month's last day when the month is shorter (31 January →
 * 28/29 February → 31 March), always counted from the start date so no day is lost on the way.
 */

/** How often instalments fall due. */
export const FREQUENCIES = ['weekly', 'fortnightly', 'monthly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** Most instalments a plan may have (ten years of weekly payments). */
export const MAX_INSTALMENTS = 520;

/** One instalment as the schedule computes it. */
export interface PlannedInstalment {
  sequence: number;
  due_on: string;
  amount: number;
}

/** Reads `YYYY-MM-DD` as a UTC date. */
function parseDay(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}

/** Formats a UTC date as `YYYY-MM-DD`. */
export function formatDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** `day` plus `days` calendar days. */
export function addDays(day: string, days: number): string {
  const d = parseDay(day);
  d.setUTCDate(d.getUTCDate() + days);
  return formatDay(d);
}

/** Calendar days from `from` to `to` (both `YYYY-MM-DD`; negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((parseDay(to).getTime() - parseDay(from).getTime()) / 86_400_000);
}

/** `day` plus `months` calendar months, clamped to the last day of the target month. */
export function addMonths(day: string, months: number): string {
  const d = parseDay(day);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return formatDay(target);
}

/** Due date of instalment `index` (0 = the start date). */
export function dueOn(startOn: string, frequency: Frequency, index: number): string {
  switch (frequency) {
    case 'weekly':
      return addDays(startOn, 7 * index);
    case 'fortnightly':
      return addDays(startOn, 14 * index);
    case 'monthly':
      return addMonths(startOn, index);
  }
}

/** The terms of a schedule: exactly one of `instalmentAmount` or `instalmentCount`. */
export interface ScheduleTerms {
  amount: number;
  frequency: Frequency;
  startOn: string;
  instalmentAmount?: number;
  instalmentCount?: number;
  /** Sequence number of the first instalment (rescheduling continues the numbering). */
  firstSequence?: number;
}

/** Why terms cannot make a schedule: the field to blame and a message (a 422). */
export class ScheduleError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Splits `amount` into instalments: equal ones, the last taking the remainder.
 * @returns the instalments, oldest first, summing to `amount`
 * @throws ScheduleError (param `instalment_amount`/`instalment_count`/`amount`) when the terms
 *   give no instalment, more than MAX_INSTALMENTS, or instalments of 0
 */
export function buildSchedule(terms: ScheduleTerms): PlannedInstalment[] {
  const { amount, frequency, startOn } = terms;
  if (amount <= 0) throw new ScheduleError('amount', 'There is nothing left to pay: the schedule would be empty.');
  let count: number;
  let each: number;
  if (terms.instalmentCount !== undefined) {
    count = terms.instalmentCount;
    each = Math.floor(amount / count);
    if (each < 1) throw new ScheduleError('instalment_count', `instalment_count ${count} exceeds the amount to pay (${amount}).`);
  } else {
    each = terms.instalmentAmount!;
    count = Math.ceil(amount / each);
  }
  if (count > MAX_INSTALMENTS) {
    const param = terms.instalmentCount !== undefined ? 'instalment_count' : 'instalment_amount';
    throw new ScheduleError(param, `The schedule would have ${count} instalments; at most ${MAX_INSTALMENTS} are allowed.`);
  }
  const first = terms.firstSequence ?? 1;
  return Array.from({ length: count }, (_, i) => ({
    sequence: first + i,
    due_on: dueOn(startOn, frequency, i),
    amount: i === count - 1 ? amount - each * (count - 1) : each,
  }));
}
