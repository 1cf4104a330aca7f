/** Payouts (docs/api.md section 14): declarations, status machine, schemas, fees, accounts, the balance items money makes, runs, store and search. */
export * from './resource.js';
export * from './states.js';
export * from './schemas.js';
export * from './fees.js';
export * from './accounts.js';
export * from './ledger.js';
export * from './run.js';
export * from './runs.js';
export * from './store.js';
export * from './search.js';
