/**
 * `expand[]` on debt reads (docs/api.md section 4): embeds the customer and/or organisation in
 * place of their ids. A page is expanded with one query per expanded type (`WHERE id IN (…)` over
 * the page's distinct ids), never one query per debt. The accepted values are validated by the
 * operations' query schemas (`expandProperty(DEBT_EXPANSIONS)`).
 */
import type { Knex } from '@dms/db';
import { tenantRows } from '../../db/scoped.js';
import { deletedObject } from '../../schemas/common.js';
import type { CustomerRow } from '../customers/schemas.js';
import { toCustomer } from '../customers/store.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { toOrganisation } from '../organisations/store.js';
import type { Debt, DebtRow } from './schemas.js';
import { toDebt } from './store.js';

/** What a debt can expand. */
export const DEBT_EXPANSIONS = ['customer', 'organisation'] as const;
export type DebtExpansion = (typeof DEBT_EXPANSIONS)[number];

/**
 * Serializes debt rows with the requested expansions, batch-loaded from the tenant's rows.
 * A customer deleted since shows as its deleted stub `{id, object, deleted: true}`.
 * @param rows debts of `tenantId` (a page, or a single debt)
 * @param expand the validated `expand[]` values (empty: ids only)
 * @returns the public debts, in the order of `rows`
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
