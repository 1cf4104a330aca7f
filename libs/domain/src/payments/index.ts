/** Payments (docs/api.md sections 5 and 8): the declaration, the status machine, schemas, store (with refunds at providers) and search. */
export * from './resource.js';
export * from './states.js';
export * from './schemas.js';
export * from './store.js';
export * from './provider-refunds.js';
export * from './search.js';
