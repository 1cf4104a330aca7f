/** Payment plans (docs/api.md section 9): the declaration, schedules, instalments, states, schemas, plan rows and the offers for a balance (writes go through debts). */
export * from './resource.js';
export * from './schedule.js';
export * from './instalments.js';
export * from './states.js';
export * from './schemas.js';
export * from './store.js';
export * from './offers.js';
