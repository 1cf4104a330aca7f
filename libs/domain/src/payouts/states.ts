/**
 * The payout status machine (docs/api.md section 14) as one table (kernel/machine.ts), pure.
 *
 * | move        | from                | to         |
 * |-------------|---------------------|------------|
 * | in_transit  | pending             | in_transit |
 * | paid        | pending, in_transit | paid       |
 * | failed      | pending, in_transit | failed     |
 *
 * `paid` and `failed` are terminal; a failed payout's money returns to the next payout.
 */
import { defineMachine } from '../kernel/machine.js';

export const PAYOUT_STATUSES = ['pending', 'in_transit', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** The statuses an operator may move a payout to. */
export const PAYOUT_TARGETS = ['in_transit', 'paid', 'failed'] as const;
export type PayoutTarget = (typeof PAYOUT_TARGETS)[number];

/** The payout machine; each move is named for the status it leads to. */
export const PAYOUT_MACHINE = defineMachine({
  noun: 'payout',
  statuses: PAYOUT_STATUSES,
  table: {
    in_transit: { from: ['pending'], to: 'in_transit' },
    paid: { from: ['pending', 'in_transit'], to: 'paid' },
    failed: { from: ['pending', 'in_transit'], to: 'failed' },
  },
  refusal: (move) => `be marked '${move}'`,
});
