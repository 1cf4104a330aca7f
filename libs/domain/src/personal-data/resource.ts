/**
 * The customer access log (docs/api.md section 20, "Access log", "Who read
 * what"): one row per read of a customer's personal data by an operator token or a portal
 * session. Append-only (migration 089 refuses UPDATE, DELETE and TRUNCATE); read with the
 * customer's own scope, `customers:read`.
 */
import { defineResource } from '../kernel/resource.js';

/** The `customer_access_log` table (`cal_…` ids). */
export const customerAccessLogResource = defineResource({
  object: 'customer_access',
  noun: 'customer access',
  table: 'customer_access_log',
  idPrefix: 'cal',
  events: [],
});
