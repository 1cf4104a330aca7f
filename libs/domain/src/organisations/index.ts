/** Organisations (docs/api.md sections 5 and 13): the declaration, schemas, store and collection strategy. */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './payout-settings.js';
export * from './strategy.js';
