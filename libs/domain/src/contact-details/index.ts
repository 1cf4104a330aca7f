/** Contact details (docs/api.md section 10): the declaration, schemas, values and row store (writes go through customers). */
export * from './resource.js';
export * from './schemas.js';
export * from './values.js';
export * from './store.js';
export * from './sets.js';
