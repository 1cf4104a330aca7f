/**
 * Debts (docs/api.md section 5): what a customer owes an organisation, with its lifecycle status
 * and a money summary in minor units. `amount_total` and `amount_remaining` are generated columns,
 * so the summary can never disagree with the breakdown and payments. Written through the shared
 * skeleton (db/owned.ts); what is particular to debts is declared here: the references must be the
 * tenant's, and only an `initializing` debt may be edited.
 */
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { createOwned, givenFields, updateOwned, type OwnedResource } from '../../db/owned.js';
import { findOwned } from '../../db/scoped.js';
import { iso } from '../../schemas/common.js';
import type { Debt, DebtCreate, DebtExpansions, DebtRow, DebtUpdate } from './schemas.js';

/**
 * Maps a row to the public object, embedding expanded objects when given (expansion.ts).
 * @returns the debt with amounts in minor units and timestamps in RFC 3339 UTC
 */
export function toDebt(row: DebtRow, expanded: DebtExpansions = {}): Debt {
  return {
    id: row.id,
    object: 'debt',
    customer: expanded.customer ?? row.customer_id,
    organisation: expanded.organisation ?? row.organisation_id,
    account_number: row.account_number,
    kind: row.kind,
    currency: row.currency,
    start_at: iso(row.start_at),
    tags: row.tags,
    metadata: row.metadata,
    status: { value: row.status, reason: row.status_reason, updated_at: iso(row.status_updated_at)! },
    summary: {
      amount_total: row.amount_total,
      amount_paid: row.amount_paid,
      amount_remaining: row.amount_remaining,
      breakdown: { principal: row.amount_principal, interest: row.amount_interest, fees: row.amount_fees },
    },
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

const debts: OwnedResource<DebtRow, Debt> = {
  table: 'debts',
  idPrefix: 'deb',
  toObject: (row) => toDebt(row),
  events: { created: 'debt.created', updated: 'debt.updated' },
};

/**
 * Checks that the referenced customer and organisation are the tenant's (and not deleted).
 * @throws ApiError 404 `resource_missing` with `param` naming the field
 */
async function assertDebtReferences(trx: Knex.Transaction, tenantId: string, input: Pick<DebtUpdate, 'customer_id' | 'organisation_id'>): Promise<void> {
  if (input.customer_id) await findOwned(trx, 'customers', tenantId, input.customer_id, { param: 'customer_id' });
  if (input.organisation_id) await findOwned(trx, 'organisations', tenantId, input.organisation_id, { param: 'organisation_id' });
}

/** `breakdown` → the three amount columns (minor units); an omitted part is 0. */
function amountColumns(breakdown: NonNullable<DebtUpdate['breakdown']>): Record<string, number> {
  return { amount_principal: breakdown.principal, amount_interest: breakdown.interest ?? 0, amount_fees: breakdown.fees ?? 0 };
}

/**
 * Creates a debt in `initializing` and its `debt.created` event in one transaction.
 * @throws ApiError 404 `resource_missing` (param `customer_id` or `organisation_id`) for a
 *   reference that is not the tenant's
 */
export function createDebt(db: Knex, tenantId: string, input: DebtCreate): Promise<Debt> {
  const columns = {
    customer_id: input.customer_id,
    organisation_id: input.organisation_id,
    account_number: input.account_number ?? null,
    kind: input.kind ?? null,
    currency: input.currency,
    start_at: input.start_at ?? null,
    tags: input.tags ?? [],
    metadata: input.metadata,
    ...amountColumns(input.breakdown),
  };
  return createOwned(db, tenantId, debts, columns, (trx) => assertDebtReferences(trx, tenantId, input));
}

/**
 * Updates a debt (`PATCH`), allowed only while it is `initializing` (docs/api.md section 5): given
 * fields replace (`breakdown` replaces all three amounts), `metadata` merges. A new customer or
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
      const fields = givenFields(input, ['customer_id', 'organisation_id', 'currency', 'account_number', 'kind', 'start_at', 'tags']);
      return input.breakdown === undefined ? fields : { ...fields, ...amountColumns(input.breakdown) };
    },
    input.metadata,
  );
}
