/**
 * `/tenants/me` (docs/api.md sections 5 and 10): the tenant of the calling token, and its update.
 * Any valid token may read it (no scope: a client must be able to tell which account it acts for
 * whatever it was granted). Changing it (`PATCH`, and its `PUT` twin) needs `organisations:write`:
 * no scope names the tenant itself, and the tenant's profile (name, description, defaults) is the
 * account's own organisation data, so a read-only token cannot rename it (docs/api.md section 5).
 */
import { defineOperation, type AnyOperation } from '../../operations/operation.js';
import { Tenant, TenantUpdate, getTenant, updateTenant } from '@dms/domain/tenants';

const head = { path: '/tenants/me', tag: 'Tenants' } as const;
const response = { name: 'Tenant', schema: Tenant, status: 200 } as const;

/** The operations of `/tenants`. */
export const tenantOperations: AnyOperation[] = [
  defineOperation({
    ...head,
    method: 'get',
    operationId: 'retrieveCurrentTenant',
    summary: 'Retrieve the tenant of the calling token',
    description: 'Any valid token may call this, whatever its scopes.',
    access: { token: true },
    response,
    handler: (i) => getTenant(i.ctx.db, i.tenantId),
  }),
  defineOperation({
    ...head,
    method: 'patch',
    operationId: 'updateCurrentTenant',
    summary: 'Update the tenant of the calling token',
    description: 'Send `name` and/or `description` (null clears it). A read-only token cannot change the tenant.',
    access: { token: true, scope: 'organisations:write' },
    body: { name: 'TenantUpdate', schema: TenantUpdate },
    response,
    handler: (i) => updateTenant(i.ctx.db, i.tenantId, i.body),
  }),
];
