/**
 * Debts (docs/api.md sections 5 and 8): what a customer owes an organisation, with its lifecycle
 * status and a money summary in minor units, kept from its line items and succeeded payments.
 * `amount_total` and `amount_remaining` are generated columns, so the summary can never disagree
 * with its parts, and a CHECK keeps `amount_remaining >= 0`. Written through the shared
 * skeleton (kernel/owned.ts); what is particular to debts is declared here: the references must be the
 * tenant's, and only an `initializing` debt may be edited.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { createOwned, givenFields, updateOwned, type OwnedResource } from '../kernel/owned.js';
import { recordEvent } from '../kernel/outbox.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { iso } from '../kernel/schemas.js';
import { customersResource } from '../customers/resource.js';
import { organisationsResource } from '../organisations/resource.js';
import { breakdownItems, summaryDeltas } from '../line-items/kinds.js';
import { lineItemsResource } from '../line-items/resource.js';
import { checkLineItems, insertLineItems } from '../line-items/store.js';
import type { LineItemCreate } from '../line-items/schemas.js';
import { debtsResource } from './resource.js';
import type { Debt, DebtCreate, DebtRow, DebtUpdate, Summary } from './schemas.js';

/**
 * Maps a row to the public object; `customer` and `organisation` are ids (the API's
 * services/api/src/resources/debts/expansion.ts embeds them).
 * @returns the debt with amounts in minor units and timestamps in RFC 3339 UTC
 */
export function toDebt(row: DebtRow): Debt {
  return {
    id: row.id,
    object: 'debt',
    customer: row.customer_id,
    organisation: row.organisation_id,
    account_number: row.account_number,
    kind: row.kind,
    originator: row.originator,
    configurations: row.configurations,
    currency: row.currency,
    start_at: iso(row.start_at),
    tags: row.tags,
    metadata: row.metadata,
    status: {
      value: row.status,
      reason: row.status_reason,
      whodunnit: row.status_whodunnit,
      context: row.status_context,
      end_at: iso(row.pause_end_at),
      updated_at: iso(row.status_updated_at)!,
    },
    summary: toSummary(row),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

/** The debt's `summary` (docs/api.md section 8): totals and sums by kind, minor units. */
export function toSummary(row: DebtRow): Summary {
  return {
    amount_total: row.amount_total,
    amount_paid: row.amount_paid,
    amount_remaining: row.amount_remaining,
    breakdown: {
      principal: row.amount_principal,
      interest: row.amount_interest,
      fees: row.amount_fees,
      value_added_tax: row.amount_vat,
      discounts: row.amount_discounts,
      refunds: row.amount_refunds,
    },
  };
}

const debts: OwnedResource<DebtRow, Debt, typeof debtsResource> = {
  resource: debtsResource,
  toObject: (row) => toDebt(row),
  events: { created: 'debt.created', updated: 'debt.updated' },
};

/**
 * Checks that the referenced customer and organisation are the tenant's (and not deleted).
 * @throws ApiError 404 `resource_missing` with `param` naming the field
 */
async function assertDebtReferences(trx: Knex.Transaction, tenantId: string, input: Pick<DebtUpdate, 'customer_id' | 'organisation_id'>): Promise<void> {
  if (input.customer_id) await findOwned(trx, customersResource, tenantId, input.customer_id, { param: 'customer_id' });
  if (input.organisation_id) await findOwned(trx, organisationsResource, tenantId, input.organisation_id, { param: 'organisation_id' });
}

/**
 * The first line items of a new debt: `line_items`, or those `breakdown` stands for, or none.
 * @throws ApiError 400 `validation_failed` (param `line_items`) when both are given
 */
function initialItems(input: DebtCreate): LineItemCreate[] {
  if (input.line_items && input.breakdown) {
    const message = 'give line_items or breakdown, not both';
    throw new ApiError('validation_failed', message, { param: 'line_items', errors: [{ param: 'line_items', message }] });
  }
  return input.line_items ?? breakdownItems(input.breakdown ?? {});
}

/**
 * Creates a debt in `initializing` with its first line items (docs/api.md section 8), the summary
 * computed from them, in one transaction: `debt.created`, then `line_item.created` per item.
 * @throws ApiError 404 `resource_missing` (param `customer_id` or `organisation_id`) for a
 *   reference that is not the tenant's; 422 `business_rule_violation` for an item's sign or
 *   currency (param `line_items[i].amount`/`.currency`) or a negative total (param `line_items`)
 */
export async function createDebt(db: Knex, tenantId: string, input: DebtCreate): Promise<Debt> {
  const items = initialItems(input);
  checkLineItems(input.currency, items, (i) => `line_items[${i}]`);
  const sums = summaryDeltas(items);
  if (Object.values(sums).reduce((a, b) => a + b, 0) < 0) {
    throw new ApiError('business_rule_violation', 'The line items would make amount_total negative.', { param: 'line_items' });
  }
  const columns = {
    customer_id: input.customer_id,
    organisation_id: input.organisation_id,
    account_number: input.account_number ?? null,
    kind: input.kind ?? null,
    originator: input.originator ?? null,
    configurations: JSON.stringify(input.configurations ?? {}),
    currency: input.currency,
    start_at: input.start_at ?? null,
    tags: input.tags ?? [],
    metadata: input.metadata,
    ...sums,
  };
  return db.transaction(async (trx) => {
    const debt = await createOwned(trx, tenantId, debts, columns, (t) => assertDebtReferences(t, tenantId, input));
    await insertLineItems(trx, tenantId, { id: debt.id, currency: input.currency }, items);
    return debt;
  });
}

/**
 * While `initializing`, `breakdown` replaces the draft's `debt`/`interest`/`fee` items (nothing
 * has been collected yet, so this is a correction of the draft, not of the ledger), and a new
 * currency is carried to its items.
 * @returns the summary columns to write
 */
async function redraftItems(trx: Knex.Transaction, tenantId: string, current: DebtRow, input: DebtUpdate): Promise<Record<string, unknown>> {
  const currency = input.currency ?? current.currency;
  const itemsOf = () => tenantRows(trx, lineItemsResource, tenantId).where('line_items.debt_id', current.id);
  if (input.currency !== undefined) await itemsOf().update({ currency });
  if (input.breakdown === undefined) return {};
  await itemsOf().whereIn('kind', ['debt', 'interest', 'fee']).whereNull('invoice_id').delete();
  const items = breakdownItems(input.breakdown);
  await insertLineItems(trx, tenantId, { id: current.id, currency }, items);
  const left = await itemsOf().select('kind', 'amount');
  return summaryDeltas(left);
}

/**
 * Updates a debt (`PATCH`), allowed only while it is `initializing` (docs/api.md section 5): given
 * fields replace (`breakdown` replaces the draft's debt/interest/fee line items), `metadata` merges. A new customer or
 * organisation must be the tenant's. Writes `debt.updated` in the same transaction; the row is
 * locked so a concurrent lifecycle move cannot slip in between the status check and the write.
 * @throws ApiError 404 `resource_missing` (the debt, or `customer_id`/`organisation_id` with `param`),
 *   409 `invalid_state_transition` once the debt has left `initializing`
 */
export function updateDebt(db: Knex, tenantId: string, id: string, input: DebtUpdate): Promise<Debt> {
  return updateOwned(
    db,
    tenantId,
    debts,
    id,
    async (current, trx) => {
      if (current.status !== 'initializing') {
        throw new ApiError('invalid_state_transition', `A debt can only be updated while 'initializing'; this one is '${current.status}'.`);
      }
      await assertDebtReferences(trx, tenantId, input);
      const fields = givenFields(input, ['customer_id', 'organisation_id', 'currency', 'account_number', 'kind', 'originator', 'start_at', 'tags']);
      const configurations =
        input.configurations === undefined ? {} : { configurations: JSON.stringify({ ...current.configurations, ...input.configurations }) };
      return { ...fields, ...configurations, ...(await redraftItems(trx, tenantId, current, input)) };
    },
    input.metadata,
  );
}

/**
 * Writes `columns` of a debt the caller has locked, without a status change, and records
 * `debt.updated` (the summary changed).
 * @returns the debt after the change
 */
export async function updateLockedDebt(trx: Knex.Transaction, tenantId: string, debtId: string, columns: Record<string, unknown>): Promise<Debt> {
  const [row] = await tenantRows(trx, debtsResource, tenantId)
    .where('debts.id', debtId)
    .update({ ...columns, updated_at: trx.fn.now() })
    .returning('*');
  const debt = toDebt(row as DebtRow);
  await recordEvent(trx, debtsResource, tenantId, 'debt.updated', debt);
  return debt;
}
