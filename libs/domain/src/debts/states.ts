/**
 * The debt lifecycle of docs/api.md sections 6 and 9 as one machine (kernel/machine.ts), and the
 * pure functions that read it. Every status change of a debt (actions, payments, refunds, plans,
 * the worker, delete) is decided here and written by moves.ts, nowhere else.
 *
 * | move            | from                                                           | to         |
 * |-----------------|----------------------------------------------------------------|------------|
 * | ready           | initializing                                                   | prepared   |
 * | pause           | prepared, resumed, paying, defaulted                           | paused     |
 * | resume          | paused                                                         | resumed¹   |
 * | dispute         | prepared, resumed, paused, paying, defaulted                   | disputed   |
 * | resolve-dispute | disputed                                                       | resumed¹   |
 * | settle          | prepared, resumed, paused, paying, defaulted                   | settled    |
 * | withdraw        | any but terminal                                               | withdrawn  |
 * | pay             | prepared, resumed, paused, paying, defaulted (balance cleared) | paid       |
 * | refund          | paid (a refund reopens the balance)                            | resumed    |
 * | plan            | prepared, resumed, paused, defaulted (a new plan)              | paying     |
 * | cancel-plan     | paying                                                         | resumed    |
 * | default         | paying (an instalment missed; the worker)                      | defaulted  |
 * | delete          | initializing                                                   | deleted    |
 *
 * ¹ `paying` instead while the debt has an active payment plan: the moves `resume-to-plan` and
 * `resolve-to-plan` of the table, chosen by `transition` when the caller says a plan is active.
 */
import { defineMachine, type Transition } from '../kernel/machine.js';

/** Every status of the lifecycle (docs/api.md sections 6 and 9). */
export const DEBT_STATUSES = [
  'initializing',
  'prepared',
  'paused',
  'resumed',
  'paying',
  'defaulted',
  'disputed',
  'settled',
  'paid',
  'withdrawn',
  'deleted',
] as const;
export type DebtStatus = (typeof DEBT_STATUSES)[number];

/** Actions a client triggers with `POST /debts/{id}/{action}`. */
export const DEBT_ACTIONS = ['ready', 'pause', 'resume', 'dispute', 'resolve-dispute', 'settle', 'withdraw'] as const;
export type DebtAction = (typeof DEBT_ACTIONS)[number];

/** Statuses in which payments are accepted (those from which `pay` is allowed). */
export const COLLECTING: readonly DebtStatus[] = ['prepared', 'resumed', 'paused', 'paying', 'defaulted'];

/** Statuses nothing leaves (except `paid`, by a refund). */
export const TERMINAL: readonly DebtStatus[] = ['settled', 'paid', 'withdrawn', 'deleted'];

/** What a refusal says a debt cannot do, where "be moved by '<move>'" would read badly or name a plan variant. */
const REFUSALS: Partial<Record<string, string>> = {
  pay: 'accept payments',
  delete: 'be deleted',
  plan: 'take a payment plan',
  'resume-to-plan': "be moved by 'resume'",
  'resolve-to-plan': "be moved by 'resolve-dispute'",
};

/** The lifecycle machine. */
export const DEBT_MACHINE = defineMachine({
  noun: 'debt',
  statuses: DEBT_STATUSES,
  table: {
    ready: { from: ['initializing'], to: 'prepared' },
    pause: { from: ['prepared', 'resumed', 'paying', 'defaulted'], to: 'paused' },
    resume: { from: ['paused'], to: 'resumed' },
    'resume-to-plan': { from: ['paused'], to: 'paying' },
    dispute: { from: COLLECTING, to: 'disputed' },
    'resolve-dispute': { from: ['disputed'], to: 'resumed' },
    'resolve-to-plan': { from: ['disputed'], to: 'paying' },
    settle: { from: COLLECTING, to: 'settled' },
    withdraw: { from: ['initializing', 'prepared', 'paused', 'resumed', 'paying', 'defaulted', 'disputed'], to: 'withdrawn' },
    pay: { from: COLLECTING, to: 'paid' },
    refund: { from: ['paid'], to: 'resumed' },
    plan: { from: ['prepared', 'resumed', 'paused', 'defaulted'], to: 'paying' },
    'cancel-plan': { from: ['paying'], to: 'resumed' },
    default: { from: ['paying'], to: 'defaulted' },
    delete: { from: ['initializing'], to: 'deleted' },
  },
  // The refusal names the client's own action, never the plan variant of the table.
  refusal: (move) => REFUSALS[move],
});

/** Every move of the table. */
export type TableMove = (typeof DEBT_MACHINE.moves)[number];

/** Every move callers ask for (the plan variants are chosen by `transition`). */
export type DebtMove = Exclude<TableMove, 'resume-to-plan' | 'resolve-to-plan'>;

/** The rule of each move callers ask for (for documentation: what it starts from and leads to without a plan). */
export const TRANSITIONS = DEBT_MACHINE.table;

/** Moves whose `resumed` becomes `paying` while an active plan exists (section 9). */
const TO_PLAN: Partial<Record<DebtMove, TableMove>> = { resume: 'resume-to-plan', 'resolve-dispute': 'resolve-to-plan' };

/** Moves that need to know whether the debt has an active plan: they lead back to it, or end it. */
export const PLAN_AWARE: readonly DebtMove[] = ['resume', 'resolve-dispute', 'settle', 'withdraw'];

/** Moves that cancel an active plan. */
export const PLAN_ENDING: readonly DebtMove[] = ['settle', 'withdraw'];

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
export function transition(status: DebtStatus, move: DebtMove, activePlan = false): Transition<DebtStatus> {
  return DEBT_MACHINE.transition(status, (activePlan && TO_PLAN[move]) || move);
}

/**
 * Like `transition`, for callers that stop on refusal.
 * @returns the status `move` leads to
 * @throws ApiError 409 `invalid_state_transition`
 */
export function requireTransition(status: DebtStatus, move: DebtMove, activePlan = false): DebtStatus {
  return DEBT_MACHINE.require(status, (activePlan && TO_PLAN[move]) || move);
}

/** True when the debt accepts payments (the `pay` move's starting statuses). */
export function acceptsPayments(status: DebtStatus): boolean {
  return DEBT_MACHINE.allows(status, 'pay');
}
