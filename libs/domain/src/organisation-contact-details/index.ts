/** An organisation's contact details (docs/api.md section 15): the declaration, schemas and store. */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
