/**
 * The statuses of what the portal arranges (docs/api.md section 18): a saving checkout
 * (`payment_setups`: `open` until the provider's outcome, then `completed` or `failed`) and a
 * pay-later promise (`payment_promises`: `active` until the worker charges it, then `kept` or
 * `broken`). Each write of those status columns goes through these machines (arrangements.ts, promises.ts).
 */
import { defineMachine } from '../kernel/machine.js';

/** The statuses of a saving checkout. */
export const SETUP_STATUSES = ['open', 'completed', 'failed'] as const;

/** The setup machine. */
export const SETUP_MACHINE = defineMachine({
  noun: 'payment setup',
  statuses: SETUP_STATUSES,
  table: {
    complete: { from: ['open'], to: 'completed' },
    fail: { from: ['open'], to: 'failed' },
  },
});

/** The statuses of a promise. */
export const PROMISE_STATUSES = ['active', 'kept', 'broken'] as const;

/** The promise machine. */
export const PROMISE_MACHINE = defineMachine({
  noun: 'payment promise',
  statuses: PROMISE_STATUSES,
  table: {
    keep: { from: ['active'], to: 'kept' },
    break: { from: ['active'], to: 'broken' },
  },
});
