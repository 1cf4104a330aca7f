/** Payments (docs/api.md sections 5 and 8): the declaration, the status machine, schemas, store and search. */
export * from './resource.js';
export * from './states.js';
export * from './schemas.js';
export * from './store.js';
export * from './search.js';
