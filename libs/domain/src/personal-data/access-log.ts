/**
 * Recording and reading who read a customer's personal data (docs/api.md section 20, "Access
 * log"): the API records every read by an operator token, the portal every read by a portal
 * session, through `recordAccess`; tenants read the log newest first.
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import { Type, iso, timestampSchema, type Static } from '../kernel/schemas.js';
import { tenantRows } from '../kernel/scoped.js';
import { customerAccessLogResource } from './resource.js';

/** One read to record: which tenant's customer, who read (`operator:<client id>`, `portal:<session id>`), through which operation. */
export interface AccessRecord {
  tenant: string;
  customerId: string;
  actor: string;
  /** The operation read through: an API operationId (`retrieveCustomer`) or a portal page name. */
  operation: string;
}

/** One stored row of `customer_access_log`. */
export interface AccessRow {
  id: string;
  tenant_id: string;
  customer_id: string;
  actor: string;
  operation: string;
  created_at: Date | string;
}

/** The public form of one access (docs/api.md section 20). */
export const CustomerAccess = Type.Object(
  {
    id: Type.String({ description: 'Id of the entry (`cal_…`).' }),
    object: Type.Literal('customer_access'),
    customer_id: Type.String({ description: 'The customer whose data was read.' }),
    actor: Type.String({ description: 'Who read: `operator:<client id>` or `portal:<session id>`.' }),
    operation: Type.String({ description: 'What was read: the API operation (`retrieveCustomer`, `exportCustomer`, …) or the portal page.' }),
    created_at: timestampSchema('When it was read.'),
  },
  { additionalProperties: false },
);
export type CustomerAccess = Static<typeof CustomerAccess>;

/** The public form of a row. */
export function toCustomerAccess(row: AccessRow): CustomerAccess {
  return { id: row.id, object: 'customer_access', customer_id: row.customer_id, actor: row.actor, operation: row.operation, created_at: iso(row.created_at)! };
}

/**
 * Records reads of personal data, one row per customer (several customers: a list page an operator read).
 * Nothing is written for an empty list.
 */
export async function recordAccesses(db: Knex | Knex.Transaction, records: readonly AccessRecord[]): Promise<void> {
  if (!records.length) return;
  await db(customerAccessLogResource.table).insert(
    records.map((r) => ({
      id: newId(customerAccessLogResource.idPrefix),
      tenant_id: r.tenant,
      customer_id: r.customerId,
      actor: r.actor,
      operation: r.operation,
    })),
  );
}

/** Records one read of a customer's personal data (the portal calls it for each page it shows a customer). */
export async function recordAccess(db: Knex | Knex.Transaction, record: AccessRecord): Promise<void> {
  await recordAccesses(db, [record]);
}

/** The tenant's access-log rows of one customer (newest first once paged by `seq`). */
export function accessLogOf(db: Knex | Knex.Transaction, tenantId: string, customerId: string): Knex.QueryBuilder {
  return tenantRows(db, customerAccessLogResource, tenantId).where(`${customerAccessLogResource.table}.customer_id`, customerId);
}
