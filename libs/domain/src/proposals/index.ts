/**
 * Proposals (`prp_`, docs/api.md section 18): a plan the customer proposed outside the policy,
 * for the tenant or an operator to decide; the pure policy check the portal uses; the resource,
 * its schemas and store (after debts and income-and-expenditure).
 */
export * from './policy.js';
export * from './resource.js';
export * from './schemas.js';
export * from './store.js';
