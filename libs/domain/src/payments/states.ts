/**
 * The payment status machine (docs/api.md section 8) as one table (kernel/machine.ts), pure.
 *
 * | move         | from                          | to                 |
 * |--------------|-------------------------------|--------------------|
 * | succeed      | pending                       | succeeded          |
 * | fail         | pending                       | failed             |
 * | cancel       | pending                       | canceled           |
 * | refund       | succeeded, partially_refunded | refunded (all that is left)        |
 * | refund-part  | succeeded, partially_refunded | partially_refunded (less than that) |
 *
 * Only `succeeded` money (less refunds) counts as paid.
 */
import { defineMachine } from '../kernel/machine.js';

export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'canceled', 'refunded', 'partially_refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses a payment may be created in. */
export const CREATE_STATUSES = ['pending', 'succeeded'] as const;

/** Statuses a `PUT`/`PATCH` may move a pending payment to. */
export const OUTCOME_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

const REFUNDABLE = ['succeeded', 'partially_refunded'] as const;

/** The payment machine. */
export const PAYMENT_MACHINE = defineMachine({
  noun: 'payment',
  statuses: PAYMENT_STATUSES,
  table: {
    succeed: { from: ['pending'], to: 'succeeded' },
    fail: { from: ['pending'], to: 'failed' },
    cancel: { from: ['pending'], to: 'canceled' },
    refund: { from: REFUNDABLE, to: 'refunded' },
    'refund-part': { from: REFUNDABLE, to: 'partially_refunded' },
  },
  refusal: (move) => (move === 'refund' || move === 'refund-part' ? 'be refunded' : `move by '${move}'`),
});

/** The moves callers ask for; a refund's table move depends on how much it refunds. */
export type PaymentMove = 'succeed' | 'fail' | 'cancel' | 'refund';

/** The move that leads to an outcome status. */
export const OUTCOME_MOVES: Readonly<Record<OutcomeStatus, PaymentMove>> = { succeeded: 'succeed', failed: 'fail', canceled: 'cancel' };

/**
 * Decides a move.
 * @param fullRefund for `refund`: whether it refunds all that is left
 * @returns the status it leads to
 * @throws ApiError 409 `invalid_state_transition` when `move` is not allowed from `status`
 */
export function requirePaymentTransition(status: PaymentStatus, move: PaymentMove, fullRefund = false): PaymentStatus {
  return PAYMENT_MACHINE.require(status, move === 'refund' && !fullRefund ? 'refund-part' : move);
}
