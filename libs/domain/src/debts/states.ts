/**
 * The debt lifecycle of docs/api.md sections 6, 9 and 12 as one machine (kernel/machine.ts), and
 * the pure functions that read it. Every status change of a debt (the tenant's actions, payments,
 * refunds, plans, the collection engine, the worker, operators, delete) is decided here and
 * written by moves.ts, nowhere else.
 *
 * The 28 statuses, by who moves a debt there (section 12):
 * - tenant: initializing, prepared, paused, resumed, withdrawn, deleted, adjusted;
 * - the collection engine: analysing, enriching, contacted, contact_established, contact_failed,
 *   process_exhausted;
 * - the customer (payments and plans): arranging, paying, defaulted, settled, paid;
 * - action required (operators classify what the customer sent): queried, disputed,
 *   follow_up_required;
 * - operations and legal (operators): assessing, recovering, legal_protection, returned,
 *   discharged, closed;
 * - legacy: open (never produced; readable, and left like any status being worked).
 *
 * Groups the table is written with:
 * - WORKED: being worked, the engine may contact the customer (section 12's contact rules);
 * - HELD: being collected but no contact (paused, queried, assessing, legal_protection);
 * - COLLECTING = WORKED + HELD: accepts payments, can be disputed, settled, protected;
 * - TERMINAL: nothing leaves them, except a refund reopening `paid`.
 *
 * `resume` and `resolve-dispute` lead to `paying` while the debt has an active payment plan: the
 * moves `resume-to-plan` and `resolve-to-plan` of the table, chosen by `transition`.
 */
import { defineMachine, type Transition } from '../kernel/machine.js';

/** Every status (docs/api.md section 12), in the reference's order. */
export const DEBT_STATUSES = [
  'initializing',
  'prepared',
  'paused',
  'resumed',
  'withdrawn',
  'deleted',
  'adjusted',
  'analysing',
  'enriching',
  'contacted',
  'contact_established',
  'contact_failed',
  'process_exhausted',
  'arranging',
  'paying',
  'defaulted',
  'settled',
  'paid',
  'queried',
  'disputed',
  'follow_up_required',
  'assessing',
  'recovering',
  'legal_protection',
  'returned',
  'discharged',
  'closed',
  'open',
] as const;
export type DebtStatus = (typeof DEBT_STATUSES)[number];

/** Actions a client triggers with `POST /debts/{id}/{action}`. */
export const DEBT_ACTIONS = ['ready', 'pause', 'resume', 'dispute', 'resolve-dispute', 'settle', 'withdraw'] as const;
export type DebtAction = (typeof DEBT_ACTIONS)[number];

/** Statuses the collection engine moves a debt through (section 12, "platform, automatic"). */
export const ENGINE_STATUSES: readonly DebtStatus[] = ['analysing', 'enriching', 'contacted', 'contact_established', 'contact_failed', 'process_exhausted'];

/** Being worked: the engine may contact the customer (within the contact rules of section 12). */
export const WORKED: readonly DebtStatus[] = [
  'prepared',
  'resumed',
  'adjusted',
  ...ENGINE_STATUSES,
  'arranging',
  'paying',
  'defaulted',
  'follow_up_required',
  'recovering',
  'open',
];

/** Being collected, but no communication goes out (section 12's contact rules). */
export const HELD: readonly DebtStatus[] = ['paused', 'queried', 'assessing', 'legal_protection'];

/** Statuses in which payments are accepted (those from which `pay` is allowed). */
export const COLLECTING: readonly DebtStatus[] = [...WORKED, ...HELD];

/** Statuses nothing leaves (except `paid`, by a refund). */
export const TERMINAL: readonly DebtStatus[] = ['settled', 'paid', 'withdrawn', 'deleted', 'returned', 'discharged', 'closed'];

/** Every status a debt can still leave. */
const OPEN_STATUSES: readonly DebtStatus[] = DEBT_STATUSES.filter((s) => !TERMINAL.includes(s));

/** Statuses from which a debt goes back to being worked by `resume`. */
const RESUMABLE: readonly DebtStatus[] = ['paused', 'queried', 'follow_up_required', 'assessing', 'recovering', 'legal_protection'];

/** What a refusal says a debt cannot do, where "be moved by '<move>'" would read badly or name a plan variant. */
const REFUSALS: Partial<Record<string, string>> = {
  pay: 'accept payments',
  delete: 'be deleted',
  plan: 'take a payment plan',
  'plan-proposed': 'take a payment plan',
  'resume-to-plan': "be moved by 'resume'",
  'resolve-to-plan': "be moved by 'resolve-dispute'",
};

/** The lifecycle machine. */
export const DEBT_MACHINE = defineMachine({
  noun: 'debt',
  statuses: DEBT_STATUSES,
  table: {
    // The tenant's actions (section 6).
    ready: { from: ['initializing'], to: 'prepared' },
    pause: { from: WORKED, to: 'paused' },
    resume: { from: RESUMABLE, to: 'resumed' },
    'resume-to-plan': { from: RESUMABLE, to: 'paying' },
    dispute: { from: COLLECTING, to: 'disputed' },
    'resolve-dispute': { from: ['disputed'], to: 'resumed' },
    'resolve-to-plan': { from: ['disputed'], to: 'paying' },
    settle: { from: COLLECTING, to: 'settled' },
    withdraw: { from: OPEN_STATUSES, to: 'withdrawn' },
    delete: { from: ['initializing'], to: 'deleted' },
    // The tenant changes the balance of a debt the engine works: it picks it up again.
    adjust: { from: ENGINE_STATUSES, to: 'adjusted' },
    // Money (sections 8 and 9).
    pay: { from: COLLECTING, to: 'paid' },
    refund: { from: ['paid'], to: 'resumed' },
    plan: { from: [...WORKED.filter((s) => s !== 'paying' && s !== 'arranging'), 'paused'], to: 'paying' },
    'plan-proposed': { from: [...WORKED.filter((s) => s !== 'paying' && s !== 'arranging'), 'paused'], to: 'arranging' },
    'plan-due': { from: ['arranging'], to: 'paying' },
    'cancel-plan': { from: ['paying', 'arranging'], to: 'resumed' },
    default: { from: ['paying'], to: 'defaulted' },
    // The collection engine (section 12).
    analyse: { from: ['prepared', 'adjusted', 'resumed', 'enriching', 'contact_failed'], to: 'analysing' },
    enrich: { from: ['analysing'], to: 'enriching' },
    contact: { from: ['analysing'], to: 'contacted' },
    'establish-contact': { from: ['analysing', 'enriching', 'contacted', 'contact_failed', 'process_exhausted'], to: 'contact_established' },
    'fail-contact': { from: ['analysing', 'contacted'], to: 'contact_failed' },
    exhaust: { from: ['contacted', 'contact_established'], to: 'process_exhausted' },
    // Operators (section 12's operator API).
    query: { from: WORKED, to: 'queried' },
    'require-follow-up': { from: [...WORKED.filter((s) => s !== 'follow_up_required'), 'queried'], to: 'follow_up_required' },
    assess: { from: [...WORKED, 'queried', 'disputed'], to: 'assessing' },
    recover: { from: ['defaulted', 'assessing', 'process_exhausted'], to: 'recovering' },
    protect: { from: [...COLLECTING.filter((s) => s !== 'legal_protection'), 'disputed'], to: 'legal_protection' },
    return: { from: OPEN_STATUSES, to: 'returned' },
    discharge: { from: OPEN_STATUSES, to: 'discharged' },
    close: { from: OPEN_STATUSES, to: 'closed' },
  },
  // The refusal names the client's own action, never the plan variant of the table.
  refusal: (move) => REFUSALS[move],
});

/** Every move of the table. */
export type TableMove = (typeof DEBT_MACHINE.moves)[number];

/** Every move callers ask for (the plan variants are chosen by `transition`). */
export type DebtMove = Exclude<TableMove, 'resume-to-plan' | 'resolve-to-plan'>;

/** The rules of the table, by move (documentation and OpenAPI descriptions). */
export const TRANSITIONS = DEBT_MACHINE.table;

/** Moves whose `resumed` becomes `paying` while an active plan exists (section 9). */
const TO_PLAN: Partial<Record<DebtMove, TableMove>> = { resume: 'resume-to-plan', 'resolve-dispute': 'resolve-to-plan' };

/** Moves that need to know whether the debt has an active plan: they lead back to it, or end it. */
export const PLAN_AWARE: readonly DebtMove[] = ['resume', 'resolve-dispute', 'settle', 'withdraw', 'return', 'discharge', 'close'];

/** Moves that cancel an active plan (the debt leaves collection). */
export const PLAN_ENDING: readonly DebtMove[] = ['settle', 'withdraw', 'return', 'discharge', 'close'];

/** The move an operator's `POST /operator/debts/{id}/status` makes for each status it may name (section 12). */
export const OPERATOR_MOVES = {
  queried: 'query',
  disputed: 'dispute',
  follow_up_required: 'require-follow-up',
  assessing: 'assess',
  recovering: 'recover',
  legal_protection: 'protect',
  returned: 'return',
  discharged: 'discharge',
  closed: 'close',
  resumed: 'resume',
} as const satisfies Partial<Record<DebtStatus, DebtMove>>;

/** A status an operator may move a debt to. */
export type OperatorStatus = keyof typeof OPERATOR_MOVES;

/** True for statuses nothing but a refund leaves. */
export function isTerminal(status: DebtStatus): boolean {
  return TERMINAL.includes(status);
}

/** True while no communication may go out (section 12: paused, disputed, queried, legal protection, assessing, terminal). */
export function forbidsContact(status: DebtStatus): boolean {
  return !WORKED.includes(status);
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
