/**
 * Erasing a customer (docs/api.md section 20, "Erasure"; GDPR Article 17), in one transaction:
 * every personal column of the registry (registry.ts) is replaced by the marker in the customer's
 * own rows, and every copy of those values in stored events (so in webhook delivery bodies), the
 * errors of their deliveries, import rows and errors is replaced too; the stored idempotent
 * responses that concern the customer are removed (stored-responses.ts); stored
 * statement events lose their money groups as the statements do; amounts, dates, statuses and ids stay, so
 * balances and payouts still reconcile. Refused while a debt is being worked or a payment is
 * pending. Records `customer.erased`; erasing an erased customer changes nothing.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { Type, textSchema } from '../kernel/schemas.js';
import { recordEvent } from '../kernel/outbox.js';
import { openPersonal } from '../kernel/personal-box.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { customersResource } from '../customers/resource.js';
import { loadCustomer } from '../customers/store.js';
import type { Customer } from '../customers/schemas.js';
import { contactDetailsResource } from '../contact-details/resource.js';
import { communicationsResource } from '../communications/resource.js';
import { WORKED } from '../debts/states.js';
import { paymentsResource } from '../payments/resource.js';
import { importErrorsResource, importsResource } from '../imports/resource.js';
import { incomeAndExpendituresResource } from '../income-and-expenditure/resource.js';
import { webhookDeliveriesResource } from '../webhooks/resource.js';
import { clearedDetails, resealDetails } from '../income-and-expenditure/sealed.js';
import { COPY_COLUMNS, ERASED, OWNED_COLUMNS, STATEMENT_DETAIL_GROUPS, STATEMENT_EVENTS, type CopyColumn, type OwnedColumn } from './registry.js';
import { erasable, likePatterns, scrubJson, scrubStored, stringsIn } from './scrub.js';
import { debtsOf, eventsAbout, ofCustomer, ofCustomerDebts } from './related.js';
import { eraseStoredResponses } from './stored-responses.js';

type Trx = Knex.Transaction;

/** `POST /customers/{id}/erase` body. */
export const CustomerErase = Type.Object(
  { reason: textSchema(500, 'Why the customer is erased (a request under Article 17, the end of the retention period, …).') },
  { additionalProperties: false },
);

/** The customer's rows of an owned table. */
function ownedRows(trx: Trx, table: OwnedColumn['table'], tenantId: string, customerId: string): Knex.QueryBuilder {
  if (table === 'customers') return tenantRows(trx, customersResource, tenantId).where('customers.id', customerId);
  const resource = {
    communications: communicationsResource,
    customer_contact_details: contactDetailsResource,
    income_and_expenditures: incomeAndExpendituresResource,
  }[table];
  return ofCustomer(trx, resource, tenantId, customerId);
}

/** The rows of a copy column that may hold the customer's values. */
function copyRows(trx: Trx, table: CopyColumn['table'], tenantId: string, customerId: string): Knex.QueryBuilder {
  if (table === 'events') return eventsAbout(trx, tenantId, customerId);
  const deliveries = () =>
    tenantRows(trx, webhookDeliveriesResource, tenantId).whereIn('webhook_deliveries.event_id', eventsAbout(trx, tenantId, customerId).select('events.id'));
  if (table === 'webhook_deliveries') return deliveries();
  if (table === 'webhook_delivery_attempts')
    return trx('webhook_delivery_attempts').whereIn('webhook_delivery_attempts.delivery_id', deliveries().select('webhook_deliveries.id'));
  if (table === 'import_errors') return tenantRows(trx, importErrorsResource, tenantId);
  return trx('import_rows').whereIn('import_rows.import_id', tenantRows(trx, importsResource, tenantId).select('imports.id'));
}

/**
 * The debts that forbid erasure: those being worked and those with a pending payment.
 * @throws ApiError 409 `invalid_state_transition` naming each
 */
async function refuseWhileWorked(trx: Trx, tenantId: string, customerId: string): Promise<void> {
  const worked = await debtsOf(trx, tenantId, customerId).whereIn('debts.status', WORKED).orderBy('debts.seq').pluck('debts.id');
  const pending = await ofCustomerDebts(trx, paymentsResource, tenantId, customerId).where('payments.status', 'pending').distinct().pluck('payments.debt_id');
  const named = [...worked.map((id: string) => `${id} (being worked)`), ...pending.map((id: string) => `${id} (payment pending)`)];
  if (named.length)
    throw new ApiError(
      'invalid_state_transition',
      `Customer '${customerId}' cannot be erased while a debt is being worked or a payment is pending: ${named.join(', ')}.`,
    );
}

/** Every personal value the customer's own rows hold (dates as `YYYY-MM-DD`, JSON objects' strings, sealed values opened). */
async function personalValues(trx: Trx, tenantId: string, customerId: string): Promise<string[]> {
  const values: string[] = [];
  // A sealed statement holds amounts, not text: cleared by resealDetails, never searched for.
  for (const c of OWNED_COLUMNS.filter((o) => o.kind !== 'sealed_statement')) {
    const rows = await ownedRows(trx, c.table, tenantId, customerId).select(trx.raw(`??${c.kind === 'date' ? '::text' : ''} AS v`, [`${c.table}.${c.column}`]));
    for (const { v } of rows as { v: unknown }[]) {
      const value = c.kind === 'sealed' && typeof v === 'string' ? openPersonal(v) : v;
      values.push(...(c.kind === 'json' ? stringsIn(value) : typeof value === 'string' ? [value] : []));
    }
  }
  return erasable(values);
}

/** SQL of a statement's money group `group` (an SQL expression of a JSON object) with each entry 0 a month, keys kept. */
function clearedGroup(group: string): string {
  const zero = `jsonb_build_object('amount', 0, 'frequency', 'monthly', 'monthly', 0)`;
  return `COALESCE((SELECT jsonb_object_agg(e.k, ${zero}) FROM jsonb_each(${group}) AS e(k, v)), '{}'::jsonb)`;
}

/** Clears the money groups and zeroes the group totals of the customer's stored statement events (`STATEMENT_EVENTS`). */
async function clearStatementEvents(trx: Trx, tenantId: string, customerId: string): Promise<void> {
  const groups = STATEMENT_DETAIL_GROUPS.map((g) => `'${g}', ${clearedGroup(`events.data->'object'->'${g}'`)}`).join(', ');
  const totals = `COALESCE((SELECT jsonb_object_agg(t.k, 0) FROM jsonb_each(events.data->'object'->'totals') AS t(k, v)), '{}'::jsonb)`;
  await eventsAbout(trx, tenantId, customerId)
    .whereIn('events.type', STATEMENT_EVENTS)
    .update({ data: trx.raw(`jsonb_set(events.data, '{object}', (events.data->'object') || jsonb_build_object(${groups}, 'totals', ${totals}))`) });
}

/** The SET of an owned column: text and JSON strings to the marker (null stays null), a date or a sealed value to null, a sealed statement kept (resealed after). */
function erasedValue(trx: Trx, c: OwnedColumn): Knex.Raw {
  const col = `${c.table}.${c.column}`;
  if (c.kind === 'date' || c.kind === 'sealed') return trx.raw('NULL');
  if (c.kind === 'cleared') return trx.raw(`CASE WHEN ?? IS NULL THEN NULL ELSE ${clearedGroup('??')} END`, [col, col]);
  if (c.kind === 'sealed_statement') return trx.raw('??', [col]); // sealed again by resealDetails
  if (c.kind === 'text') return trx.raw('CASE WHEN ?? IS NULL THEN NULL ELSE ?::text END', [col, ERASED]);
  return trx.raw(
    `CASE WHEN jsonb_typeof(??) = 'object' THEN COALESCE((SELECT jsonb_object_agg(e.k, CASE WHEN jsonb_typeof(e.v) = 'string' THEN to_jsonb(?::text) ELSE e.v END) FROM jsonb_each(??) AS e(k, v)), '{}'::jsonb) ELSE ?? END`,
    [col, ERASED, col, col],
  );
}

/** Replaces the copies of `values` in one copy column; returns the rows changed. */
async function scrubCopies(trx: Trx, c: CopyColumn, tenantId: string, customerId: string, values: readonly string[]): Promise<number> {
  const col = `${c.table}.${c.column}`;
  const rows = (await copyRows(trx, c.table, tenantId, customerId)
    .whereRaw('??::text LIKE ANY(?)', [col, likePatterns(values)])
    .select([...c.key.map((k) => trx.raw('??::text AS ??', [`${c.table}.${k}`, k])), trx.raw('?? AS v', [col])])
    .forUpdate()) as Record<string, unknown>[];
  const changed = rows.flatMap((r) => {
    const v = c.kind === 'json' ? JSON.stringify(scrubJson(r.v, values)) : scrubStored(String(r.v), values);
    return v === (c.kind === 'json' ? JSON.stringify(r.v) : r.v) ? [] : [{ ...Object.fromEntries(c.key.map((k) => [k, r[k]])), v }];
  });
  const type = c.kind === 'json' ? 'jsonb' : 'text';
  for (let i = 0; i < changed.length; i += 500) {
    await trx.raw(
      `UPDATE ?? AS t SET ?? = v.v::${type} FROM jsonb_to_recordset(?::jsonb) AS v(${c.key.map((k) => `"${k}" text`).join(', ')}, v text) WHERE ${c.key.map((k) => `t."${k}"::text = v."${k}"`).join(' AND ')}`,
      [c.table, c.column, JSON.stringify(changed.slice(i, i + 500))],
    );
  }
  return changed.length;
}

/**
 * Erases the tenant's customer `customerId` in `trx` (see the module's description); the worker's
 * retention erasure calls it in the transaction of its claim.
 * @param reason why (stored on the customer, not personal data itself)
 * @returns the customer as it now is (every personal field the marker, `date_of_birth` null)
 * @throws ApiError 404 `resource_missing`; 409 `invalid_state_transition` naming the debts being
 *   worked or with a pending payment (nothing changed)
 */
export async function eraseCustomerIn(trx: Trx, tenantId: string, customerId: string, reason: string): Promise<Customer> {
  const row = await findOwned<{ erased_at: Date | null }>(trx, customersResource, tenantId, customerId, { forUpdate: true });
  if (row.erased_at) return loadCustomer(trx, tenantId, customerId);
  await refuseWhileWorked(trx, tenantId, customerId);
  const values = await personalValues(trx, tenantId, customerId);
  if (values.length) for (const c of COPY_COLUMNS) await scrubCopies(trx, c, tenantId, customerId, values);
  await eraseStoredResponses(trx, tenantId, customerId, values);
  await clearStatementEvents(trx, tenantId, customerId);
  for (const table of new Set(OWNED_COLUMNS.map((c) => c.table))) {
    const set = Object.fromEntries(OWNED_COLUMNS.filter((c) => c.table === table).map((c) => [c.column, erasedValue(trx, c)]));
    // Statements are never updated otherwise and have no updated_at.
    await ownedRows(trx, table, tenantId, customerId).update(table === 'income_and_expenditures' ? set : { ...set, updated_at: trx.fn.now() });
  }
  await resealDetails(trx, ownedRows(trx, 'income_and_expenditures', tenantId, customerId), clearedDetails);
  await tenantRows(trx, customersResource, tenantId).where('customers.id', customerId).update({ erased_at: trx.fn.now(), erasure_reason: reason });
  const customer = await loadCustomer(trx, tenantId, customerId);
  await recordEvent(trx, customersResource, tenantId, 'customer.erased', customer);
  return customer;
}

/** `eraseCustomerIn` in a transaction of its own (`POST /customers/{id}/erase`); same answers and errors. */
export function eraseCustomer(db: Knex, tenantId: string, customerId: string, reason: string): Promise<Customer> {
  return db.transaction((trx) => eraseCustomerIn(trx, tenantId, customerId, reason));
}
