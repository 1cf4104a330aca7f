/** Communications (docs/api.md sections 12 and 13): the declaration, schemas, machine, store, the collection engine's decisions, inbound messages and receipts. */
export * from './resource.js';
export * from './schemas.js';
export * from './states.js';
export * from './store.js';
export * from './search.js';
export * from './rules.js';
export * from './details.js';
export * from './channels.js';
export * from './render.js';
export * from './reads.js';
export * from './engine.js';
export * from './outcomes.js';
export * from './reconcile.js';
export * from './retries.js';
export * from './inbound.js';
export * from './operator.js';
export * from './simulate.js';
