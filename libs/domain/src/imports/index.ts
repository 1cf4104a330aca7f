/** File imports (docs/api.md section 16): declarations, schemas, statuses, files, upload, store and row application. */
export * from './resource.js';
export * from './files.js';
export * from './values.js';
export * from './lanes.js';
export * from './states.js';
export * from './schemas.js';
export * from './store.js';
export * from './upload.js';
export * from './apply.js';
export { CLOSURE_CODES } from './rows/closure.js';
