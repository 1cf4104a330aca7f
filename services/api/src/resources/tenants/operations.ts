/**
 * `/tenants/me` (docs/api.md section 5): the tenant of the calling token. Any valid token may
 * read it (no scope: a client must be able to tell which account it acts for whatever it was
 * granted).
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { Tenant } from './schemas.js';
import { getTenant } from './store.js';

/** The operations of `/tenants`. */
export const tenantOperations: AnyOperation[] = [
  defineOperation({
    method: 'get',
    path: '/tenants/me',
    operationId: 'retrieveCurrentTenant',
    tag: 'Tenants',
    summary: 'Retrieve the tenant of the calling token',
    description: 'Any valid token may call this, whatever its scopes.',
    access: { token: true },
    response: { name: 'Tenant', schema: Tenant, status: 200 },
    handler: (i) => getTenant(i.ctx.db, i.tenantId),
  }),
];
