/**
 * The debt lifecycle of docs/api.md section 6 as one table, and the pure function that reads it.
 * Every status change of a debt (actions, payments, delete) is decided here and nowhere else.
 *
 * | action          | from                                          | to           |
 * |-----------------|-----------------------------------------------|--------------|
 * | ready           | initializing                                  | prepared     |
 * | pause           | prepared, resumed                             | paused       |
 * | resume          | paused                                        | resumed      |
 * | dispute         | prepared, resumed, paused                     | disputed     |
 * | resolve-dispute | disputed                                      | resumed      |
 * | settle          | prepared, resumed, paused                     | settled      |
 * | withdraw        | initializing, prepared, paused, resumed, disputed | withdrawn |
 * | pay             | prepared, resumed, paused (balance cleared)   | paid         |
 * | delete          | initializing                                  | deleted      |
 */
import { ApiError } from '@dms/errors';
import type { DebtStatus } from './schemas.js';

/** Actions a client triggers with `POST /debts/{id}/{action}`. */
export const DEBT_ACTIONS = ['ready', 'pause', 'resume', 'dispute', 'resolve-dispute', 'settle', 'withdraw'] as const;
export type DebtAction = (typeof DEBT_ACTIONS)[number];

/** Every move, including those caused by a payment that clears the balance and by `DELETE`. */
export type DebtMove = DebtAction | 'pay' | 'delete';

/** Statuses in which payments are accepted (those from which `pay` is allowed). */
const COLLECTING: readonly DebtStatus[] = ['prepared', 'resumed', 'paused'];

/** The transition table: for each move, the statuses it starts from and the status it leads to. */
export const TRANSITIONS: Readonly<Record<DebtMove, { from: readonly DebtStatus[]; to: DebtStatus }>> = {
  ready: { from: ['initializing'], to: 'prepared' },
  pause: { from: ['prepared', 'resumed'], to: 'paused' },
  resume: { from: ['paused'], to: 'resumed' },
  dispute: { from: COLLECTING, to: 'disputed' },
  'resolve-dispute': { from: ['disputed'], to: 'resumed' },
  settle: { from: COLLECTING, to: 'settled' },
  withdraw: { from: ['initializing', 'prepared', 'paused', 'resumed', 'disputed'], to: 'withdrawn' },
  pay: { from: COLLECTING, to: 'paid' },
  delete: { from: ['initializing'], to: 'deleted' },
};

/** The outcome of asking for a move: the next status, or why the move is not allowed. */
export type Transition = { ok: true; to: DebtStatus } | { ok: false; message: string };

/**
 * Decides a move. Pure: no I/O, so callers apply it under their own row lock.
 * @returns `{ok: true, to}` when `move` is allowed from `status`, else `{ok: false, message}`
 *   (the message is fit for a 409 `invalid_state_transition` body)
 */
export function transition(status: DebtStatus, move: DebtMove): Transition {
  const rule = TRANSITIONS[move];
  if (rule.from.includes(status)) return { ok: true, to: rule.to };
  const allowed = rule.from.join(', ');
  const what = move === 'pay' ? 'accept payments' : move === 'delete' ? 'be deleted' : `be moved by '${move}'`;
  return { ok: false, message: `A debt in status '${status}' cannot ${what}; allowed from: ${allowed}.` };
}

/**
 * Like `transition`, for callers that stop on refusal.
 * @returns the status `move` leads to
 * @throws ApiError 409 `invalid_state_transition`
 */
export function requireTransition(status: DebtStatus, move: DebtMove): DebtStatus {
  const result = transition(status, move);
  if (!result.ok) throw new ApiError('invalid_state_transition', result.message);
  return result.to;
}
