/** Line items (docs/api.md section 8): the declaration, kinds and signs, schemas and row store. */
export * from './resource.js';
export * from './kinds.js';
export * from './schemas.js';
export * from './store.js';
