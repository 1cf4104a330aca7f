/** The customer portal's domain (docs/api.md section 18): links, settings, verification, the customer's view. */
export * from './links.js';
export * from './settings.js';
export * from './verify.js';
export * from './view.js';
export * from './issue.js';
export * from './contact.js';
export * from './pay.js';
export * from './plan.js';
export * from './offers.js';
export * from './promises.js';
export * from './arrangements.js';
export * from './authority.js';
export * from './charges.js';
export * from './states.js';
export * from './reminders.js';
