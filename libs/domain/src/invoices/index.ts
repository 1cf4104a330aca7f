/** Invoices (docs/api.md section 8): the declaration, schemas, store and search. */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './search.js';
