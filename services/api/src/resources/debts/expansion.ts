/**
 * What a debt expands (docs/api.md sections 4 and 10): `customer` and `organisation` in place of
 * their ids; `payments`, `line_items`, `invoices` and `payment_plans` as lists of the debt's
 * objects (newest first, their own references as ids). Each is one batch query per page
 * (operations/expansion.ts). A customer deleted since shows as its deleted stub
 * `{id, object, deleted: true}`. Also the debt embedded in the objects that belong to it
 * (`expand[]=debt`).
 */
import type { Knex } from '@dms/db';
import { expandObjects, referencedRow, referencingRows, type ExpansionRegistry, type Relation } from '../../operations/expansion.js';
import { deletedObject } from '../../schemas/common.js';
import type { CustomerRow } from '../customers/schemas.js';
import { toCustomer, withContactDetails } from '../customers/store.js';
import { toInvoice, withLineItemIds, type InvoiceRowWithItems } from '../invoices/store.js';
import type { LineItemRow } from '../line-items/schemas.js';
import { toLineItem } from '../line-items/store.js';
import type { OrganisationRow } from '../organisations/schemas.js';
import { toOrganisation } from '../organisations/store.js';
import { toPaymentPlan } from '../payment-plans/active.js';
import type { PaymentPlanRow } from '../payment-plans/schemas.js';
import type { PaymentRow } from '../payments/schemas.js';
import { toPayment } from '../payments/store.js';
import type { Debt, DebtRow } from './schemas.js';
import { toDebt } from './store.js';

/** The relations of a debt. */
export const DEBT_EXPANSIONS = {
  customer: referencedRow<Debt, CustomerRow>('customers', (d) => d.customer as string, toCustomer, {
    select: (db, q) => withContactDetails(db)(q),
    missing: (id) => deletedObject('customer', id),
  }),
  organisation: referencedRow<Debt, OrganisationRow>('organisations', (d) => d.organisation as string, toOrganisation),
  payments: referencingRows<Debt, PaymentRow>('payments', 'debt_id', toPayment),
  line_items: referencingRows<Debt, LineItemRow>('line_items', 'debt_id', toLineItem),
  invoices: referencingRows<Debt, InvoiceRowWithItems>('invoices', 'debt_id', (r) => toInvoice(r, r.line_item_ids), { select: withLineItemIds }),
  payment_plans: referencingRows<Debt, PaymentPlanRow>('payment_plans', 'debt_id', (r) => toPaymentPlan(r)),
} satisfies ExpansionRegistry<Debt>;

export type DebtExpansion = keyof typeof DEBT_EXPANSIONS;

/**
 * `expand[]=debt` of an object that belongs to a debt (payment, invoice, payment plan): the debt
 * in place of its id, its own references as ids.
 */
export function embeddedDebt<Obj extends { debt: unknown }>(): Relation<Obj> {
  return referencedRow<Obj, DebtRow>(
    'debts',
    (o) => o.debt as string,
    (r) => toDebt(r),
  );
}

/**
 * Serializes debt rows with the requested expansions.
 * @param rows debts of `tenantId` (a page, or a single debt)
 * @param expand the validated `expand[]` values (empty: ids only)
 * @returns the public debts, in the order of `rows`
 */
export function serializeDebts(db: Knex, tenantId: string, rows: DebtRow[], expand: ReadonlySet<DebtExpansion>): Promise<Debt[]> {
  return expandObjects(
    db,
    tenantId,
    rows.map((r) => toDebt(r)),
    [...expand],
    DEBT_EXPANSIONS,
  );
}
