/**
 * The debt lifecycle of docs/api.md sections 6 and 9 as one table, and the pure function that
 * reads it. Every status change of a debt (actions, payments, refunds, plans, the worker, delete)
 * is decided here and nowhere else.
 *
 * | move            | from                                                          | to         |
 * |-----------------|---------------------------------------------------------------|------------|
 * | ready           | initializing                                                  | prepared   |
 * | pause           | prepared, resumed, paying, defaulted                          | paused     |
 * | resume          | paused                                                        | resumed¹   |
 * | dispute         | prepared, resumed, paused, paying, defaulted                  | disputed   |
 * | resolve-dispute | disputed                                                      | resumed¹   |
 * | settle          | prepared, resumed, paused, paying, defaulted                  | settled    |
 * | withdraw        | any but terminal                                              | withdrawn  |
 * | pay             | prepared, resumed, paused, paying, defaulted (balance cleared) | paid      |
 * | refund          | paid (a refund reopens the balance)                           | resumed    |
 * | plan            | prepared, resumed, paused, defaulted (a new plan)             | paying     |
 * | cancel-plan     | paying                                                        | resumed    |
 * | default         | paying (an instalment missed; the worker)                     | defaulted  |
 * | delete          | initializing                                                  | deleted    |
 *
 * ¹ `paying` instead while the debt has an active payment plan.
 */
import { ApiError } from '@dms/errors';
import type { DebtStatus } from './schemas.js';

/** Actions a client triggers with `POST /debts/{id}/{action}`. */
export const DEBT_ACTIONS = ['ready', 'pause', 'resume', 'dispute', 'resolve-dispute', 'settle', 'withdraw'] as const;
export type DebtAction = (typeof DEBT_ACTIONS)[number];

/** Every move, including those caused by payments, refunds, plans, the worker and `DELETE`. */
export type DebtMove = DebtAction | 'pay' | 'refund' | 'plan' | 'cancel-plan' | 'default' | 'delete';

/** Statuses in which payments are accepted (those from which `pay` is allowed). */
export const COLLECTING: readonly DebtStatus[] = ['prepared', 'resumed', 'paused', 'paying', 'defaulted'];

/** Statuses nothing leaves (except `paid`, by a refund). */
export const TERMINAL: readonly DebtStatus[] = ['settled', 'paid', 'withdrawn', 'deleted'];

/** The transition table: for each move, the statuses it starts from and the status it leads to. */
export const TRANSITIONS: Readonly<Record<DebtMove, { from: readonly DebtStatus[]; to: DebtStatus }>> = {
  ready: { from: ['initializing'], to: 'prepared' },
  pause: { from: ['prepared', 'resumed', 'paying', 'defaulted'], to: 'paused' },
  resume: { from: ['paused'], to: 'resumed' },
  dispute: { from: COLLECTING, to: 'disputed' },
  'resolve-dispute': { from: ['disputed'], to: 'resumed' },
  settle: { from: COLLECTING, to: 'settled' },
  withdraw: { from: ['initializing', 'prepared', 'paused', 'resumed', 'paying', 'defaulted', 'disputed'], to: 'withdrawn' },
  pay: { from: COLLECTING, to: 'paid' },
  refund: { from: ['paid'], to: 'resumed' },
  plan: { from: ['prepared', 'resumed', 'paused', 'defaulted'], to: 'paying' },
  'cancel-plan': { from: ['paying'], to: 'resumed' },
  default: { from: ['paying'], to: 'defaulted' },
  delete: { from: ['initializing'], to: 'deleted' },
};

/** Moves whose `resumed` becomes `paying` while an active plan exists (section 9). */
const BACK_TO_PLAN: readonly DebtMove[] = ['resume', 'resolve-dispute'];

/** The outcome of asking for a move: the next status, or why the move is not allowed. */
export type Transition = { ok: true; to: DebtStatus } | { ok: false; message: string };

/** True for statuses nothing but a refund leaves. */
export function isTerminal(status: DebtStatus): boolean {
  return TERMINAL.includes(status);
}

/**
 * Decides a move. Pure: no I/O, so callers apply it under their own row lock.
 * @param activePlan whether the debt has an active payment plan (resume and resolve lead to `paying`)
 * @returns `{ok: true, to}` when `move` is allowed from `status`, else `{ok: false, message}`
 *   (the message is fit for a 409 `invalid_state_transition` body)
 */
export function transition(status: DebtStatus, move: DebtMove, activePlan = false): Transition {
  const rule = TRANSITIONS[move];
  if (rule.from.includes(status)) return { ok: true, to: activePlan && BACK_TO_PLAN.includes(move) ? 'paying' : rule.to };
  const allowed = rule.from.join(', ');
  const what = move === 'pay' ? 'accept payments' : move === 'delete' ? 'be deleted' : move === 'plan' ? 'take a payment plan' : `be moved by '${move}'`;
  return { ok: false, message: `A debt in status '${status}' cannot ${what}; allowed from: ${allowed}.` };
}

/**
 * Like `transition`, for callers that stop on refusal.
 * @returns the status `move` leads to
 * @throws ApiError 409 `invalid_state_transition`
 */
export function requireTransition(status: DebtStatus, move: DebtMove, activePlan = false): DebtStatus {
  const result = transition(status, move, activePlan);
  if (!result.ok) throw new ApiError('invalid_state_transition', result.message);
  return result.to;
}
