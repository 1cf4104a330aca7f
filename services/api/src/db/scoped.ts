/**
 * Tenant scoping: every query on tenant data starts here, so no handler can forget the tenant
 * (the `secure_find` habit of svix). Another tenant's object is indistinguishable from a missing
 * one: both are 404 `resource_missing`.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';

/** Listable tables and which of their rows are visible (deleted rows are kept but hidden). */
export const SCOPED_TABLES = {
  organisations: { object: 'organisation', visible: (_q: Knex.QueryBuilder) => {} },
  customers: { object: 'customer', visible: (q: Knex.QueryBuilder) => void q.whereNull('customers.deleted_at') },
  debts: { object: 'debt', visible: (q: Knex.QueryBuilder) => void q.whereNot('debts.status', 'deleted') },
  payments: { object: 'payment', visible: (_q: Knex.QueryBuilder) => {} },
  line_items: { object: 'line item', visible: (_q: Knex.QueryBuilder) => {} },
  invoices: { object: 'invoice', visible: (_q: Knex.QueryBuilder) => {} },
  payment_plans: { object: 'payment plan', visible: (_q: Knex.QueryBuilder) => {} },
  events: { object: 'event', visible: (_q: Knex.QueryBuilder) => {} },
  webhook_endpoints: { object: 'webhook endpoint', visible: (q: Knex.QueryBuilder) => void q.whereNull('webhook_endpoints.deleted_at') },
  webhook_deliveries: { object: 'webhook delivery', visible: (_q: Knex.QueryBuilder) => {} },
  // Deleted details stay retrievable (docs/api.md section 10); their list narrows them out itself.
  customer_contact_details: { object: 'contact detail', visible: (_q: Knex.QueryBuilder) => {} },
} as const;

export type ScopedTable = keyof typeof SCOPED_TABLES;

/** The visible rows of `table` that belong to `tenantId`. */
export function tenantRows(db: Knex | Knex.Transaction, table: ScopedTable, tenantId: string): Knex.QueryBuilder {
  const q = db(table).where(`${table}.tenant_id`, tenantId);
  SCOPED_TABLES[table].visible(q);
  return q;
}

/**
 * Loads one visible row of the tenant.
 * @param options.forUpdate lock the row (inside a transaction) against concurrent changes
 * @param options.select replaces the selected columns (e.g. adds a computed one); default `*`
 * @throws ApiError 404 `resource_missing`
 */
export async function findOwned<Row>(
  db: Knex | Knex.Transaction,
  table: ScopedTable,
  tenantId: string,
  id: string,
  options: { forUpdate?: boolean; param?: string; select?: (q: Knex.QueryBuilder) => void } = {},
): Promise<Row> {
  const missing = () => new ApiError('resource_missing', `No such ${SCOPED_TABLES[table].object}: '${id}'`, options.param ? { param: options.param } : {});
  // PostgreSQL text cannot hold U+0000 (a path id of `%00`): no object has such an id, and the
  // query would fail with an encoding error (a 500) instead of the 404 it deserves.
  if (id.includes('\u0000')) throw missing();
  const q = tenantRows(db, table, tenantId).where(`${table}.id`, id);
  options.select?.(q);
  q.first();
  if (options.forUpdate) q.forUpdate();
  const row = await q;
  if (!row) throw missing();
  return row as Row;
}
