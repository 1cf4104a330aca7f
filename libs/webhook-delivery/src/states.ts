/**
 * The life of a webhook delivery (docs/api.md section 7) as one table, and the pure function that
 * reads it. A delivery is one event for one endpoint; the dispatcher decides every move it makes
 * through `transition`, and the queue statements (queue.ts) carry the moves out in SQL.
 *
 * | move    | from                                 | to              | what the queue does besides           |
 * |---------|--------------------------------------|-----------------|---------------------------------------|
 * | claim   | pending, retry_scheduled (when due)  | delivering      | counts the attempt, leases the row    |
 * | reclaim | delivering (its lease ran out)       | delivering      | records the interrupted attempt failed |
 * | succeed | delivering                           | succeeded       | records the attempt                   |
 * | retry   | delivering                           | retry_scheduled | records the attempt, due after backoff |
 * | exhaust | delivering                           | exhausted       | records the attempt; disables the endpoint unless one of its deliveries succeeded since this one began |
 * | release | delivering                           | pending         | due now, attempt not counted (shutdown) |
 * | cancel  | pending, retry_scheduled, delivering | canceled        | endpoint deleted or disabled, or event gone |
 * | requeue | retry_scheduled, exhausted, canceled | pending         | due now, the retry schedule starts afresh (docs/api.md section 11: retry, recover, re-enable) |
 *
 * `succeeded` is final. `exhausted` and `canceled` are final for the dispatcher; only the
 * tenant's `requeue` (an operator's decision, docs/api.md section 11) leaves them. A dispatcher
 * that lost its lease before recording writes nothing: the row has moved on (reclaimed, canceled
 * or requeued) without it.
 */

/** States of a delivery. `delivering` is a pending row under a dispatcher's lease. */
export const DELIVERY_STATES = ['pending', 'delivering', 'retry_scheduled', 'succeeded', 'exhausted', 'canceled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Moves between states (the table above). */
export const DELIVERY_MOVES = ['claim', 'reclaim', 'succeed', 'retry', 'exhaust', 'release', 'cancel', 'requeue'] as const;
export type DeliveryMove = (typeof DELIVERY_MOVES)[number];

/** The public and stored `status` of a delivery (column `webhook_deliveries.status`). */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The stored status of each state: everything not yet final is `pending`. */
export const STORED_STATUS: Readonly<Record<DeliveryState, DeliveryStatus>> = {
  pending: 'pending',
  delivering: 'pending',
  retry_scheduled: 'pending',
  succeeded: 'succeeded',
  exhausted: 'failed',
  canceled: 'canceled',
};

/** The transition table: for each move, the states it starts from and the state it leads to. */
export const TRANSITIONS: Readonly<Record<DeliveryMove, { from: readonly DeliveryState[]; to: DeliveryState }>> = {
  claim: { from: ['pending', 'retry_scheduled'], to: 'delivering' },
  reclaim: { from: ['delivering'], to: 'delivering' },
  succeed: { from: ['delivering'], to: 'succeeded' },
  retry: { from: ['delivering'], to: 'retry_scheduled' },
  exhaust: { from: ['delivering'], to: 'exhausted' },
  release: { from: ['delivering'], to: 'pending' },
  cancel: { from: ['pending', 'retry_scheduled', 'delivering'], to: 'canceled' },
  requeue: { from: ['retry_scheduled', 'exhausted', 'canceled'], to: 'pending' },
};

/** The columns of a stored delivery that determine its state (`webhook_deliveries`, migrations 004 and 020). */
export interface DeliveryStateColumns {
  status: DeliveryStatus;
  lease_token: string | null;
  attempt_count: number;
  /** Attempts made before the current schedule began (a requeue starts a new one). */
  schedule_base: number;
}

/**
 * Reads the state of a stored delivery: the inverse of `STORED_STATUS` for the pending ones. A
 * pending row under a lease is `delivering`; one with attempts in its current schedule is
 * `retry_scheduled`; otherwise `pending`.
 */
export function stateOf(row: DeliveryStateColumns): DeliveryState {
  switch (row.status) {
    case 'succeeded':
      return 'succeeded';
    case 'failed':
      return 'exhausted';
    case 'canceled':
      return 'canceled';
    default:
      if (row.lease_token !== null) return 'delivering';
      return row.attempt_count > row.schedule_base ? 'retry_scheduled' : 'pending';
  }
}

/** The outcome of asking for a move: the next state, or why the move is not allowed. */
export type DeliveryTransition = { ok: true; to: DeliveryState } | { ok: false; message: string };

/**
 * Decides a move. Pure: no I/O; the queue statements apply it under the row's lease.
 * @returns `{ok: true, to}` when `move` is allowed from `state`, else `{ok: false, message}`
 */
export function transition(state: DeliveryState, move: DeliveryMove): DeliveryTransition {
  const rule = TRANSITIONS[move];
  if (rule.from.includes(state)) return { ok: true, to: rule.to };
  return { ok: false, message: `A delivery in state '${state}' cannot '${move}'; allowed from: ${rule.from.join(', ')}.` };
}

/**
 * Like `transition`, for callers to which a refused move is a programming error.
 * @returns the state `move` leads to
 * @throws Error when the move is not allowed from `state`
 */
export function requireTransition(state: DeliveryState, move: DeliveryMove): DeliveryState {
  const result = transition(state, move);
  if (!result.ok) throw new Error(result.message);
  return result.to;
}
