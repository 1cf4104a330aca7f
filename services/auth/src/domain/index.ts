/** Operator-facing domain of the issuer: tenants, OAuth clients, signing keys. */
export * from './tenants.js';
export * from './clients.js';
export * from './signing-keys.js';
