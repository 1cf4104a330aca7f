/** Payment providers (docs/api.md section 18 "Payments"): the interface, signatures, the local provider. */
export * from './provider.js';
export * from './signature.js';
export * from './local.js';
export * from './factory.js';
