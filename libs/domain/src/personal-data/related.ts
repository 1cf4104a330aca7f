/**
 * Where a customer's data lies (docs/api.md section 20, "A customer's data"): the queries of the
 * rows that belong to one customer, shared by the export and the erasure. Each is a query, not a
 * list held in memory, so a customer with a long history is read page by page.
 */
import type { Knex } from '@dms/db';
import type { AnyResource } from '../kernel/resource.js';
import { tenantRows } from '../kernel/scoped.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import { debtsResource } from '../debts/resource.js';
import { paymentsResource } from '../payments/resource.js';
import { paymentPlansResource } from '../payment-plans/resource.js';
import { communicationsResource } from '../communications/resource.js';
import { eventsResource } from '../events/resource.js';

type Db = Knex | Knex.Transaction;

/** The customer's visible debts. */
export function debtsOf(db: Db, tenantId: string, customerId: string): Knex.QueryBuilder {
  return ofCustomer(db, debtsResource, tenantId, customerId);
}

/** Rows of `resource` whose `debt_id` is one of the customer's debts (payments, plans). */
export function ofCustomerDebts(db: Db, resource: AnyResource, tenantId: string, customerId: string): Knex.QueryBuilder {
  return tenantRows(db, resource, tenantId).whereIn(`${resource.table}.debt_id`, debtsOf(db, tenantId, customerId).select('debts.id'));
}

/** Rows of `resource` that name the customer in `customer_id` (contact details, communications). */
export function ofCustomer(db: Db, resource: AnyResource, tenantId: string, customerId: string): Knex.QueryBuilder {
  return tenantRows(db, resource, tenantId).where(`${resource.table}.customer_id`, customerId);
}

/**
 * The tenant's events about the customer: those whose object is the customer, one of its contact
 * details, debts, payments, plans or communications, or names the customer or one of its debts.
 */
export function eventsAbout(db: Db, tenantId: string, customerId: string): Knex.QueryBuilder {
  // A JSON path as the column of `whereIn` (Knex takes a Raw there; its types only name strings).
  const path = (expression: string) => db.raw(`events.data->'object'->>'${expression}'`) as unknown as string;
  const objectId = path('id');
  const debtIds = debtsOf(db, tenantId, customerId).select('debts.id');
  return tenantRows(db, eventsResource, tenantId).where((q) => {
    void q
      .whereRaw(`events.data->'object'->>'id' = ?`, [customerId])
      .orWhereRaw(`events.data->'object'->>'customer' = ?`, [customerId])
      .orWhereRaw(`events.data->'object'->>'customer_id' = ?`, [customerId])
      .orWhereIn(objectId, debtIds)
      .orWhereIn(path('debt_id'), debtIds)
      .orWhereIn(path('debt'), debtIds)
      .orWhereIn(objectId, ofCustomer(db, contactDetailsResource, tenantId, customerId).select('customer_contact_details.id'))
      .orWhereIn(objectId, ofCustomer(db, communicationsResource, tenantId, customerId).select('communications.id'))
      .orWhereIn(objectId, ofCustomerDebts(db, paymentsResource, tenantId, customerId).select('payments.id'))
      .orWhereIn(objectId, ofCustomerDebts(db, paymentPlansResource, tenantId, customerId).select('payment_plans.id'));
  });
}

/**
 * Reads `query` page by page in `seq` order (keyset: `seq > last`), yielding each row mapped;
 * memory holds one page at a time.
 * @param table qualifies `seq`
 */
export async function* pagesOf<Row extends { seq: number | string }, Out>(
  query: () => Knex.QueryBuilder,
  table: string,
  map: (row: Row) => Out,
  pageSize = 500,
): AsyncGenerator<Out> {
  let after: number | string = 0;
  for (;;) {
    const rows = (await query().where(`${table}.seq`, '>', after).orderBy(`${table}.seq`, 'asc').limit(pageSize)) as Row[];
    for (const row of rows) yield map(row);
    if (rows.length < pageSize) return;
    after = rows.at(-1)!.seq;
  }
}
