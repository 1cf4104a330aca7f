/**
 * `expand[]` on debt reads (CONTRACT section 4): embeds the customer and/or organisation in place
 * of their ids. A page is expanded with one query per expanded type (`WHERE id IN (…)` over the
 * page's distinct ids), never one query per debt.
 */
import type { Request } from 'express';
import type { Knex } from '@dms/db';
import { ApiError } from '@dms/errors';
import { tenantRows } from '../db/scoped.js';
import { toCustomer, type CustomerRow } from './customers.js';
import { deletedObject } from './deleted.js';
import { toDebt, type Debt, type DebtRow } from './debts.js';
import { toOrganisation, type OrganisationRow } from './organisations.js';

/** What a debt can expand. */
export const DEBT_EXPANSIONS = ['customer', 'organisation'] as const;
export type DebtExpansion = (typeof DEBT_EXPANSIONS)[number];

/** The query parameter naming expansions (repeatable: `expand[]=customer&expand[]=organisation`). */
export const EXPAND_PARAM = 'expand[]';

/**
 * Reads `expand[]` from a request's query (absent: nothing expanded).
 * @throws ApiError 400 `parameter_invalid` (param `expand[]`) for an unknown value
 */
export function parseExpand(query: Request['query']): Set<DebtExpansion> {
  const raw = query[EXPAND_PARAM];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const out = new Set<DebtExpansion>();
  for (const v of values) {
    if (typeof v !== 'string' || !(DEBT_EXPANSIONS as readonly string[]).includes(v)) {
      throw new ApiError('parameter_invalid', `expand[] must be one of: ${DEBT_EXPANSIONS.join(', ')}.`, { param: EXPAND_PARAM });
    }
    out.add(v as DebtExpansion);
  }
  return out;
}

/**
 * Serializes debt rows with the requested expansions, batch-loaded from the tenant's rows.
 * A customer deleted since shows as its deleted stub `{id, object, deleted: true}`.
 * @param rows debts of `tenantId` (a page, or a single debt)
 */
export async function serializeDebts(db: Knex, tenantId: string, rows: DebtRow[], expand: ReadonlySet<DebtExpansion>): Promise<Debt[]> {
  const distinct = (ids: string[]) => [...new Set(ids)];
  const [customers, organisations] = await Promise.all([
    expand.has('customer') && rows.length
      ? tenantRows(db, 'customers', tenantId).whereIn('customers.id', distinct(rows.map((r) => r.customer_id)))
      : Promise.resolve([] as CustomerRow[]),
    expand.has('organisation') && rows.length
      ? tenantRows(db, 'organisations', tenantId).whereIn('organisations.id', distinct(rows.map((r) => r.organisation_id)))
      : Promise.resolve([] as OrganisationRow[]),
  ]);
  const customerById = new Map((customers as CustomerRow[]).map((c) => [c.id, toCustomer(c)]));
  const organisationById = new Map((organisations as OrganisationRow[]).map((o) => [o.id, toOrganisation(o)]));
  return rows.map((row) =>
    toDebt(row, {
      customer: expand.has('customer') ? (customerById.get(row.customer_id) ?? deletedObject('customer', row.customer_id)) : undefined,
      organisation: expand.has('organisation') ? organisationById.get(row.organisation_id) : undefined,
    }),
  );
}
