/** Operator-facing domain of the issuer: OAuth clients (tenants are the domain library's), signing keys. */
export * from './clients.js';
export * from './signing-keys.js';
