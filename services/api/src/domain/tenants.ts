/**
 * The calling tenant (docs/api.md section 5): a re-export of resources/tenants (schemas and
 * store), kept while importers move there.
 */
import { Tenant } from '../resources/tenants/schemas.js';

export { getTenant } from '../resources/tenants/store.js';
export type { Tenant } from '../resources/tenants/schemas.js';

/** JSON Schema (2020-12) of the tenant object, as before the move. */
export const tenantSchemas = { object: Tenant };
