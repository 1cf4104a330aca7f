/** Tenants (docs/api.md section 5): the declaration, schemas and store. */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './clock.js';
