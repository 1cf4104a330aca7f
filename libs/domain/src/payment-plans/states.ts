/**
 * Payment plan and instalment states (docs/api.md section 9) as machines (kernel/machine.ts), pure.
 *
 * Plan:       active → completed (all paid) | broken (an instalment missed) | canceled (by the
 *             client, or by settling/withdrawing the debt). The other three are final; `change`
 *             (reschedule, delay, a payment into it) keeps an active plan active.
 * Instalment: upcoming → paid (`pay`: fully paid; `close`: a partly paid one closed at what it
 *             received when the rest is rescheduled) | missed (`miss`); `due` is `upcoming` once its
 *             date has come (shown, not stored); a missed instalment stays missed.
 */
import { ApiError } from '@dms/errors';
import { defineMachine } from '../kernel/machine.js';

export const PLAN_STATUSES = ['active', 'completed', 'broken', 'canceled'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** Statuses an instalment is stored in. */
export const STORED_INSTALMENT_STATUSES = ['upcoming', 'paid', 'missed'] as const;
export type StoredInstalmentStatus = (typeof STORED_INSTALMENT_STATUSES)[number];

/** Statuses an instalment is shown in (`due` is a stored `upcoming` whose date has come). */
export const INSTALMENT_STATUSES = ['upcoming', 'due', 'paid', 'missed'] as const;
export type InstalmentStatus = (typeof INSTALMENT_STATUSES)[number];

/** The plan machine. */
export const PLAN_MACHINE = defineMachine({
  noun: 'payment plan',
  statuses: PLAN_STATUSES,
  table: {
    complete: { from: ['active'], to: 'completed' },
    break: { from: ['active'], to: 'broken' },
    cancel: { from: ['active'], to: 'canceled' },
    change: { from: ['active'], to: 'active' },
  },
});
export type PlanMove = (typeof PLAN_MACHINE.moves)[number];

/** The instalment machine. */
export const INSTALMENT_MACHINE = defineMachine({
  noun: 'instalment',
  statuses: STORED_INSTALMENT_STATUSES,
  table: {
    pay: { from: ['upcoming'], to: 'paid' },
    close: { from: ['upcoming', 'paid'], to: 'paid' },
    miss: { from: ['upcoming'], to: 'missed' },
  },
});
export type InstalmentMove = (typeof INSTALMENT_MACHINE.moves)[number];

/**
 * Decides a plan move.
 * @returns the status it leads to
 * @throws ApiError 409 `invalid_state_transition` when the plan is not active
 */
export function requirePlanTransition(status: PlanStatus, move: PlanMove): PlanStatus {
  const result = PLAN_MACHINE.transition(status, move);
  if (!result.ok) throw new ApiError('invalid_state_transition', `A payment plan in status '${status}' cannot be changed (only an active plan can).`);
  return result.to;
}

/** The instalment status shown on `today` (`YYYY-MM-DD`): `due` for an unpaid one whose date has come. */
export function shownInstalmentStatus(stored: StoredInstalmentStatus, dueOn: string, today: string): InstalmentStatus {
  return stored === 'upcoming' && dueOn <= today ? 'due' : stored;
}

/** True when an unpaid instalment is missed on `today`: `grace_days` after `due_on` have passed. */
export function isMissed(stored: StoredInstalmentStatus, dueOn: string, graceDays: number, today: string): boolean {
  if (stored !== 'upcoming') return stored === 'missed';
  const limit = new Date(`${dueOn}T00:00:00Z`);
  limit.setUTCDate(limit.getUTCDate() + graceDays);
  return limit.toISOString().slice(0, 10) < today;
}
