/**
 * An organisation's contact details (docs/api.md section 15): the declaration, schemas and store,
 * and the organisation as served with them (its object, create and update with `contact_details`).
 */
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './organisation-schemas.js';
export * from './embedded.js';
export * from './organisation-writes.js';
