/**
 * What a debt expands (docs/api.md sections 4 and 10): `customer` and `organisation` in place of
 * their ids, `payments` as the list of its payments (newest first). Each is one batch query per
 * page (operations/expansion.ts). A customer deleted since shows as its deleted stub
 * `{id, object, deleted: true}`. The relations of issue 10's objects (line items, invoices,
 * payment plans) are added here as one entry each.
 */
import type { Knex } from '@dms/db';
import { tenantRows } from '../../db/scoped.js';
import { byId, expandObjects, groupRows, type ExpansionRegistry } from '../../operations/expansion.js';
import { deletedObject } from '../../schemas/common.js';
import type { CustomerRow } from '../customers/schemas.js';
import { toCustomer, withContactDetails } from '../customers/store.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { toOrganisation } from '../organisations/store.js';
import type { PaymentRow } from '../payments/schemas.js';
import { toPayment } from '../payments/store.js';
import type { Debt, DebtRow } from './schemas.js';
import { toDebt } from './store.js';

/** The relations of a debt. */
export const DEBT_EXPANSIONS = {
  customer: {
    key: (d) => d.customer as string,
    load: async (db, tenantId, ids) => {
      const q = tenantRows(db, 'customers', tenantId).whereIn('customers.id', ids);
      withContactDetails(db)(q);
      return byId((await q) as CustomerRow[], toCustomer);
    },
    missing: (id) => deletedObject('customer', id),
  },
  organisation: {
    key: (d) => d.organisation as string,
    load: async (db, tenantId, ids) => byId((await tenantRows(db, 'organisations', tenantId).whereIn('organisations.id', ids)) as OrganisationRow[], toOrganisation),
  },
  payments: {
    key: (d) => d.id,
    load: async (db, tenantId, ids) => {
      const rows = (await tenantRows(db, 'payments', tenantId).whereIn('payments.debt_id', ids).orderBy('payments.seq', 'desc')) as PaymentRow[];
      return groupRows(rows, (r) => r.debt_id, toPayment);
    },
    missing: () => [],
  },
} satisfies ExpansionRegistry<Debt>;

export type DebtExpansion = keyof typeof DEBT_EXPANSIONS;

/**
 * Serializes debt rows with the requested expansions.
 * @param rows debts of `tenantId` (a page, or a single debt)
 * @param expand the validated `expand[]` values (empty: ids only)
 * @returns the public debts, in the order of `rows`
 */
export function serializeDebts(db: Knex, tenantId: string, rows: DebtRow[], expand: ReadonlySet<DebtExpansion>): Promise<Debt[]> {
  return expandObjects(db, tenantId, rows.map((r) => toDebt(r)), [...expand], DEBT_EXPANSIONS);
}
