/** Webhook endpoints and deliveries (docs/api.md sections 7 and 11): the declarations, schemas, store and delivery operations. */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './deliveries.js';
export * from './delivery-actions.js';
