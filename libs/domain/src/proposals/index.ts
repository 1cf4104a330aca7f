/**
 * Proposals (`prp_`, docs/api.md section 18): a plan the customer proposed outside the policy,
 * for the tenant or an operator to decide; the pure policy check and the debt as the portal's
 * propose pages see it; the resource,
 * its schemas and store (after debts and income-and-expenditure).
 */
export * from './policy.js';
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
export * from './portal.js';
