/**
 * Tenants (docs/api.md section 5): the accounts (lenders, utilities) whose data the platform keeps
 * apart. The one resource not owned by a tenant: the issuer's admin CLI creates them, and a token
 * reaches only its own (`/tenants/me`).
 */
import { defineResource } from '../kernel/resource.js';

/** The `tenants` table. */
export const tenantsResource = defineResource({
  object: 'tenant',
  noun: 'tenant',
  table: 'tenants',
  idPrefix: 'ten',
  events: [],
  tenantScoped: false,
});
