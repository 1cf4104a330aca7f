/** A customer's personal data (docs/api.md section 20): the access log, export and erasure. */
export * from './resource.js';
export * from './access-log.js';
export * from './related.js';
export * from './export.js';
export * from './schemas.js';
export * from './registry.js';
export * from './scrub.js';
export * from './erase.js';
export * from './retention.js';
export * from './stored-responses.js';
