/**
 * Retention of personal data (docs/api.md section 20, "Retention"): a customer is erased
 * `configurations.retention.erase_after_days` (default 2190, six years) after the last of its
 * debts reached a terminal status, once every debt is terminal and no payment is pending. The
 * worker claims due customers with `dueForErasure` and erases each with `eraseCustomerIn`.
 */
import type { Knex } from '@dms/db';
import { acrossTenants } from '../kernel/scoped.js';
import { customersResource } from '../customers/resource.js';
import { TERMINAL } from '../debts/states.js';

/** Days personal data is kept after the last debt closes when the tenant sets nothing. */
export const RETENTION_DEFAULT_DAYS = 2190;

/** The reason stored on a customer the worker erased. */
export const RETENTION_REASON = 'retention';

/**
 * SQL (for `select`/`where`) of when a customer in `customers` becomes due: its debts' last status
 * change plus the tenant's `erase_after_days`.
 */
export const ERASURE_DUE_AT = `((SELECT max(d.status_updated_at) FROM debts d WHERE d.customer_id = customers.id)
  + make_interval(days => coalesce((SELECT (t.configurations->'retention'->>'erase_after_days')::int FROM tenants t WHERE t.id = customers.tenant_id), ${RETENTION_DEFAULT_DAYS})))`;

/**
 * Customers not yet erased, with at least one debt, all terminal, no pending payment, whose
 * retention has run out by `moment` (SQL of each tenant's current time, with its bindings).
 * @param tenantIds only these tenants (empty: all); the worker's claim across tenants
 */
export function dueForErasure(trx: Knex.Transaction, moment: { sql: string; bindings: readonly number[] }, tenantIds: readonly string[]): Knex.QueryBuilder {
  const terminal = TERMINAL.map((s) => `'${s}'`).join(', ');
  return acrossTenants(trx, customersResource, tenantIds)
    .whereNull('customers.erased_at')
    .whereRaw('EXISTS (SELECT 1 FROM debts d WHERE d.customer_id = customers.id)')
    .whereRaw(`NOT EXISTS (SELECT 1 FROM debts d WHERE d.customer_id = customers.id AND d.status NOT IN (${terminal}))`)
    .whereRaw(`NOT EXISTS (SELECT 1 FROM payments p JOIN debts d ON d.id = p.debt_id WHERE d.customer_id = customers.id AND p.status = 'pending')`)
    .whereRaw(`${ERASURE_DUE_AT} <= ${moment.sql}`, [...moment.bindings]);
}
