/**
 * What a debt expands (docs/api.md sections 4 and 10): `customer` and `organisation` in place of
 * their ids; `payments`, `line_items`, `invoices`, `payment_plans` and `income_and_expenditures` as lists of the debt's
 * objects (newest first, their own references as ids). Each is one batch query per page
 * (operations/expansion.ts). A customer deleted since shows as its deleted stub
 * `{id, object, deleted: true}`. Also the debt embedded in the objects that belong to it
 * (`expand[]=debt`).
 */
import type { Knex } from '@dms/db';
import { deletedObject } from '@dms/domain/kernel';
import { customersResource, toCustomer, withContactDetails, type CustomerRow } from '@dms/domain/customers';
import { debtsResource, toDebt, type DebtRow } from '@dms/domain/debts';
import { incomeAndExpendituresResource, toIncomeAndExpenditure, type IncomeAndExpenditureRow } from '@dms/domain/income-and-expenditure';
import { invoicesResource, toInvoice, withLineItemIds, type InvoiceRowWithItems } from '@dms/domain/invoices';
import { lineItemsResource, toLineItem, type LineItemRow } from '@dms/domain/line-items';
import { toOrganisationWithDetails, withOrganisationContactDetails, type OrganisationRowWithDetails } from '@dms/domain/organisation-contact-details';
import { organisationsResource } from '@dms/domain/organisations';
import { paymentPlansResource, toPaymentPlan, type PaymentPlanRow } from '@dms/domain/payment-plans';
import { paymentsResource, toPayment, type PaymentRow } from '@dms/domain/payments';
import { declareExpansions, expandObjects, referencedRow, referencingRows, type ExpansionRegistry, type Relation } from '../../operations/expansion.js';
import type { DebtView as Debt } from './schemas.js';

/** The relations of a debt. */
export const DEBT_EXPANSIONS = declareExpansions('debt', {
  customer: referencedRow<Debt, CustomerRow>(customersResource, (d) => d.customer as string, toCustomer, {
    select: (db, q) => withContactDetails(db)(q),
    missing: (id) => deletedObject('customer', id),
    expands: 'customer',
  }),
  organisation: referencedRow<Debt, OrganisationRowWithDetails>(organisationsResource, (d) => d.organisation as string, toOrganisationWithDetails, {
    select: (db, q) => withOrganisationContactDetails(db)(q),
  }),
  payments: referencingRows<Debt, PaymentRow>(paymentsResource, 'debt_id', toPayment, { expands: 'payment' }),
  line_items: referencingRows<Debt, LineItemRow>(lineItemsResource, 'debt_id', toLineItem),
  invoices: referencingRows<Debt, InvoiceRowWithItems>(invoicesResource, 'debt_id', (r) => toInvoice(r, r.line_item_ids), {
    select: withLineItemIds,
    expands: 'invoice',
  }),
  payment_plans: referencingRows<Debt, PaymentPlanRow>(paymentPlansResource, 'debt_id', (r) => toPaymentPlan(r), {
    expands: 'payment_plan',
  }),
  income_and_expenditures: referencingRows<Debt, IncomeAndExpenditureRow>(incomeAndExpendituresResource, 'debt_id', toIncomeAndExpenditure),
} satisfies ExpansionRegistry<Debt>);

export type DebtExpansion = keyof typeof DEBT_EXPANSIONS;

/**
 * `expand[]=debt` of an object that belongs to a debt (payment, invoice, payment plan): the debt
 * in place of its id, its own references as ids.
 */
export function embeddedDebt<Obj extends { debt: unknown }>(): Relation<Obj> {
  return referencedRow<Obj, DebtRow>(
    debtsResource,
    (o) => o.debt as string,
    (r) => toDebt(r),
    { expands: 'debt' },
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
