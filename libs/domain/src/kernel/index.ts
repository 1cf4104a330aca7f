/**
 * What every resource of the domain is built from (docs/api.md section 3): the declaration of a
 * resource, the tenant-scoped finder, the write skeleton, the outbox, metadata merging, state
 * machines, request validation and the shared schema pieces.
 */
export * from './schemas.js';
export * from './resource.js';
export * from './scoped.js';
export * from './owned.js';
export * from './outbox.js';
export * from './write-batch.js';
export * from './metadata.js';
export * from './machine.js';
export * from './validation.js';
export * from './livemode.js';
export * from './set-wise.js';
export * from './personal-box.js';
export * from './reseal.js';
