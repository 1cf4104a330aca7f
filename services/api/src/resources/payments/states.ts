/**
 * The payment status machine (docs/api.md section 8) as one table, pure.
 *
 * | move    | from                            | to                                   |
 * |---------|---------------------------------|--------------------------------------|
 * | succeed | pending                         | succeeded                            |
 * | fail    | pending                         | failed                               |
 * | cancel  | pending                         | canceled                             |
 * | refund  | succeeded, partially_refunded   | refunded (all of it) / partially_refunded |
 *
 * Only `succeeded` money (less refunds) counts as paid.
 */
import { ApiError } from '@dms/errors';

export const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'canceled', 'refunded', 'partially_refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses a payment may be created in. */
export const CREATE_STATUSES = ['pending', 'succeeded'] as const;

/** Statuses a `PUT`/`PATCH` may move a pending payment to. */
export const OUTCOME_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

export type PaymentMove = 'succeed' | 'fail' | 'cancel' | 'refund';

const TRANSITIONS: Readonly<Record<PaymentMove, readonly PaymentStatus[]>> = {
  succeed: ['pending'],
  fail: ['pending'],
  cancel: ['pending'],
  refund: ['succeeded', 'partially_refunded'],
};

/** The move that leads to an outcome status. */
export const OUTCOME_MOVES: Readonly<Record<OutcomeStatus, PaymentMove>> = { succeeded: 'succeed', failed: 'fail', canceled: 'cancel' };

/**
 * Decides a move.
 * @param fullRefund for `refund`: whether it refunds all that is left
 * @returns the status it leads to
 * @throws ApiError 409 `invalid_state_transition` when `move` is not allowed from `status`
 */
export function requirePaymentTransition(status: PaymentStatus, move: PaymentMove, fullRefund = false): PaymentStatus {
  if (!TRANSITIONS[move].includes(status)) {
    throw new ApiError(
      'invalid_state_transition',
      `A payment in status '${status}' cannot ${move === 'refund' ? 'be refunded' : `move by '${move}'`}; allowed from: ${TRANSITIONS[move].join(', ')}.`,
    );
  }
  switch (move) {
    case 'succeed':
      return 'succeeded';
    case 'fail':
      return 'failed';
    case 'cancel':
      return 'canceled';
    case 'refund':
      return fullRefund ? 'refunded' : 'partially_refunded';
  }
}
