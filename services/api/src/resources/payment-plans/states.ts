/**
 * Payment plan and instalment states (docs/api.md section 9) as transition tables, pure.
 *
 * Plan:       active → completed (all paid) | broken (an instalment missed) | canceled (by the
 *             client, or by settling/withdrawing the debt). The other three are final.
 * Instalment: upcoming → paid | missed; `due` is `upcoming` once its date has come (shown, not
 *             stored); a missed instalment stays missed.
 */
import { ApiError } from '@dms/errors';

export const PLAN_STATUSES = ['active', 'completed', 'broken', 'canceled'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export const INSTALMENT_STATUSES = ['upcoming', 'due', 'paid', 'missed'] as const;
export type InstalmentStatus = (typeof INSTALMENT_STATUSES)[number];

/** What happens to a plan. */
export type PlanMove = 'complete' | 'break' | 'cancel' | 'change';

const PLAN_TRANSITIONS: Readonly<Record<PlanMove, { from: readonly PlanStatus[]; to: PlanStatus }>> = {
  complete: { from: ['active'], to: 'completed' },
  break: { from: ['active'], to: 'broken' },
  cancel: { from: ['active'], to: 'canceled' },
  change: { from: ['active'], to: 'active' },
};

/**
 * Decides a plan move.
 * @returns the status it leads to
 * @throws ApiError 409 `invalid_state_transition` when the plan is not active
 */
export function requirePlanTransition(status: PlanStatus, move: PlanMove): PlanStatus {
  const rule = PLAN_TRANSITIONS[move];
  if (!rule.from.includes(status)) {
    throw new ApiError('invalid_state_transition', `A payment plan in status '${status}' cannot be changed (only an active plan can).`);
  }
  return rule.to;
}

/** The instalment status shown on `today` (`YYYY-MM-DD`): `due` for an unpaid one whose date has come. */
export function shownInstalmentStatus(stored: 'upcoming' | 'paid' | 'missed', dueOn: string, today: string): InstalmentStatus {
  return stored === 'upcoming' && dueOn <= today ? 'due' : stored;
}

/** True when an unpaid instalment is missed on `today`: `grace_days` after `due_on` have passed. */
export function isMissed(stored: 'upcoming' | 'paid' | 'missed', dueOn: string, graceDays: number, today: string): boolean {
  if (stored !== 'upcoming') return stored === 'missed';
  const limit = new Date(`${dueOn}T00:00:00Z`);
  limit.setUTCDate(limit.getUTCDate() + graceDays);
  return limit.toISOString().slice(0, 10) < today;
}
