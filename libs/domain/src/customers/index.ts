/** Customers (docs/api.md sections 5 and 10): the declaration, schemas, store, their contact details and search. */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './preferences.js';
export * from './contacts.js';
export * from './search.js';
export * from './zone.js';
export * from './birth-dates.js';
