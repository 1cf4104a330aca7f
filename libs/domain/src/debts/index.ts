/**
 * Debts (docs/api.md sections 5, 6, 8 and 9): the declaration, the lifecycle machine, schemas,
 * store (create, update, line items), moves (every status and `amount_paid` change) and the debt's
 * payment plans.
 */
export * from './resource.js';
export * from './states.js';
export * from './schemas.js';
export * from './store.js';
export * from './moves.js';
export * from './engine-state.js';
export * from './set-wise.js';
export * from './ledger.js';
export * from './plans.js';
export * from './search.js';
export * from './circumstances.js';
export * from './time-to-pay.js';
