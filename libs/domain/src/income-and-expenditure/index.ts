/**
 * Income and expenditure statements (`iae_`, docs/api.md section 19):
 * amounts and their monthly conversion, the statement's shape and validation, the disposable
 * income and the affordable instalment cap (pure, imported by organisations and payment plans);
 * and the stored resource: its declaration, schemas and store (after debts).
 */
export * from './amounts.js';
export * from './statement.js';
export * from './affordability.js';
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './sealed.js';
