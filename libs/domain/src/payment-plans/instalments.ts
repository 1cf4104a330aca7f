/**
 * What happens to a stored schedule (docs/api.md section 9), pure: payments paying the oldest
 * unpaid instalments first, delays, rescheduling of what is unpaid, and missed instalments.
 * Amounts in minor units, dates `YYYY-MM-DD`.
 */
import { addDays, buildSchedule, dueOn, type Frequency } from './schedule.js';
import { INSTALMENT_MACHINE, isMissed, type StoredInstalmentStatus } from './states.js';

/** An instalment as stored. */
export interface Instalment {
  sequence: number;
  due_on: string;
  amount: number;
  amount_paid: number;
  status: StoredInstalmentStatus;
  /** Set once the customer's time to pay delayed this instalment (docs/api.md section 18). */
  delayed?: true;
  /** Set once the customer's time to pay changed the day from this instalment on. */
  day_changed?: true;
}

/** A new schedule from computed instalments (nothing paid yet). */
export function freshInstalments(planned: ReadonlyArray<{ sequence: number; due_on: string; amount: number }>): Instalment[] {
  return planned.map((p) => ({ ...p, amount_paid: 0, status: 'upcoming' }));
}

/**
 * Pays `amount` into the oldest unpaid instalments.
 * @returns the new schedule and how much of `amount` it took (at most what is unpaid)
 */
export function allocate(schedule: readonly Instalment[], amount: number): { schedule: Instalment[]; applied: number } {
  let left = amount;
  const out = schedule.map((inst) => {
    if (inst.status === 'paid' || left === 0) return { ...inst };
    const take = Math.min(left, inst.amount - inst.amount_paid);
    left -= take;
    const paid = inst.amount_paid + take;
    return { ...inst, amount_paid: paid, status: paid === inst.amount ? INSTALMENT_MACHINE.require(inst.status, 'pay') : inst.status };
  });
  return { schedule: out, applied: amount - left };
}

/** True when every instalment is paid. */
export function allPaid(schedule: readonly Instalment[]): boolean {
  return schedule.every((i) => i.status === 'paid');
}

/** Due date of the oldest unpaid instalment, or null when all are paid. */
export function nextDueOn(schedule: readonly Instalment[]): string | null {
  return schedule.find((i) => i.status !== 'paid')?.due_on ?? null;
}

/** Shifts every unpaid instalment by `days`; `mark` (the customer's time to pay) is set on the next one. */
export function delayUnpaid(schedule: readonly Instalment[], days: number, mark?: 'delayed'): Instalment[] {
  const next = nextUnpaid(schedule)?.sequence;
  return schedule.map((i) =>
    i.status === 'paid' ? { ...i } : { ...i, due_on: addDays(i.due_on, days), ...(mark && i.sequence === next ? { [mark]: true as const } : {}) },
  );
}

/** The oldest unpaid instalment, or undefined when all are paid. */
export function nextUnpaid(schedule: readonly Instalment[]): Instalment | undefined {
  return schedule.find((i) => i.status !== 'paid');
}

/**
 * Gives every unpaid instalment from the next one on a new date: the next falls on `firstDue`,
 * the later ones follow at `frequency` from it (monthly: that day of each month, or the month's
 * last day); `mark` is set on the next one. Paid instalments and amounts stay.
 */
export function redateUnpaid(schedule: readonly Instalment[], frequency: Frequency, firstDue: string, mark: 'delayed' | 'day_changed'): Instalment[] {
  let index = 0;
  return schedule.map((i) => {
    if (i.status === 'paid') return { ...i };
    const out = { ...i, due_on: dueOn(firstDue, frequency, index), ...(index === 0 ? { [mark]: true as const } : {}) };
    index += 1;
    return out;
  });
}

/**
 * Marks the instalments missed on `today` (grace period over, unpaid).
 * @returns the new schedule and whether any instalment became missed
 */
export function markMissed(schedule: readonly Instalment[], graceDays: number, today: string): { schedule: Instalment[]; missed: boolean } {
  let missed = false;
  const out = schedule.map((i) => {
    if (i.status === 'upcoming' && isMissed(i.status, i.due_on, graceDays, today)) {
      missed = true;
      return { ...i, status: INSTALMENT_MACHINE.require(i.status, 'miss') };
    }
    return { ...i };
  });
  return { schedule: out, missed };
}

/**
 * Replaces what is unpaid with a new schedule on new terms: paid instalments stay; a partly paid
 * one is closed at what it received; the rest (the unpaid amount) is split anew, numbering on.
 * @throws ScheduleError from buildSchedule
 */
export function rescheduleUnpaid(
  schedule: readonly Instalment[],
  terms: { frequency: Frequency; startOn: string; instalmentAmount?: number; instalmentCount?: number },
): Instalment[] {
  const kept = schedule.filter((i) => i.amount_paid > 0).map((i) => ({ ...i, amount: i.amount_paid, status: INSTALMENT_MACHINE.require(i.status, 'close') }));
  const unpaid = schedule.reduce((sum, i) => sum + i.amount - i.amount_paid, 0);
  const firstSequence = kept.length + 1;
  const renumbered = kept.map((i, n) => ({ ...i, sequence: n + 1 }));
  return [...renumbered, ...freshInstalments(buildSchedule({ amount: unpaid, ...terms, firstSequence }))];
}
