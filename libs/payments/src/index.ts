/** Payment providers (docs/api.md section 18 "Payments"): the interface, signatures, the local and Stripe providers, the factory. */
export * from './provider.js';
export * from './signature.js';
export * from './local.js';
export * from './stripe.js';
export * from './factory.js';
