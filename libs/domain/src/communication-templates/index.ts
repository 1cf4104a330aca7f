/** Communication templates (docs/api.md section 13): the declarations, schemas and store. */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './defaults.js';
