/** Events (docs/api.md section 7): the declaration, the stored row and its public form. */
export * from './resource.js';
export * from './schemas.js';
