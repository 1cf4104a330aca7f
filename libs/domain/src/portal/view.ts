/**
 * What a verified customer sees (docs/api.md section 18): their debts with the link's tenant, newest
 * first, and one debt's detail. Every read is bound to the tenant and customer of the session's
 * link, so another customer's or tenant's debt (or a test-mode debt from a live link, since test
 * mode is its own tenant) is simply not found. Amounts in minor units.
 */
import type { Knex } from '@dms/db';
import { communicationsResource } from '../communications/resource.js';
import { customersResource } from '../customers/resource.js';
import { debtsResource } from '../debts/resource.js';
import { tenantRows } from '../kernel/scoped.js';
import { lineItemsResource } from '../line-items/resource.js';
import { paymentsResource } from '../payments/resource.js';

/** A line of the debts list. */
export interface PortalDebtSummary {
  id: string;
  creditor: string;
  logo: string | null;
  account_number: string | null;
  currency: string;
  amount_remaining: number;
  status: string;
  created_at: Date;
}

/** The customer's debts with this tenant, newest first. */
export async function customerDebts(db: Knex | Knex.Transaction, tenantId: string, customerId: string): Promise<PortalDebtSummary[]> {
  const rows = await debtQuery(db, tenantId, customerId).orderBy([
    { column: 'debts.created_at', order: 'desc' },
    { column: 'debts.id', order: 'desc' },
  ]);
  return rows as PortalDebtSummary[];
}

/** One debt with its line items, payments and communications; undefined when not the customer's. */
export async function customerDebt(db: Knex | Knex.Transaction, tenantId: string, customerId: string, debtId: string) {
  const debt = (await debtQuery(db, tenantId, customerId).where('debts.id', debtId).first()) as PortalDebtSummary | undefined;
  if (!debt) return undefined;
  const [lineItems, payments, communications] = await Promise.all([
    tenantRows(db, lineItemsResource, tenantId)
      .where('line_items.debt_id', debtId)
      .orderBy('line_items.transaction_at')
      .select('line_items.kind', 'line_items.amount', 'line_items.description', 'line_items.transaction_at'),
    tenantRows(db, paymentsResource, tenantId)
      .where('payments.debt_id', debtId)
      .orderBy('payments.transaction_at')
      .select('payments.amount', 'payments.currency', 'payments.transaction_at'),
    tenantRows(db, communicationsResource, tenantId)
      .where('communications.debt_id', debtId)
      .whereIn('communications.status', ['sent', 'delivered', 'received'])
      .orderBy('communications.created_at', 'desc')
      .select('communications.direction', 'communications.delivery_method', 'communications.subject', 'communications.created_at'),
  ]);
  return { debt, lineItems, payments, communications };
}

/** Whether `debtId` is one of the customer's (not deleted) debts with this tenant: what `customerDebt` would find. */
export async function isCustomerDebt(db: Knex | Knex.Transaction, tenantId: string, customerId: string, debtId: string): Promise<boolean> {
  return (await debtQuery(db, tenantId, customerId).where('debts.id', debtId).first()) !== undefined;
}

/** The brand of the organisation behind one of the customer's debts (its `customer_facing_name`, else `name`, and `logo`); undefined when not the customer's. */
export async function customerDebtBrand(
  db: Knex | Knex.Transaction,
  tenantId: string,
  customerId: string,
  debtId: string,
): Promise<{ creditor: string; logo: string | null } | undefined> {
  const row = (await debtQuery(db, tenantId, customerId).where('debts.id', debtId).first()) as PortalDebtSummary | undefined;
  return row && { creditor: row.creditor, logo: row.logo };
}

function debtQuery(db: Knex | Knex.Transaction, tenantId: string, customerId: string) {
  return tenantRows(db, debtsResource, tenantId)
    .join('organisations as o', 'o.id', 'debts.organisation_id')
    .where('debts.customer_id', customerId)
    .whereNot('debts.status', 'deleted')
    .select(
      'debts.id',
      db.raw(`coalesce(o.customer_facing_name, o.name) AS creditor`),
      db.raw(`o.logo`),
      'debts.account_number',
      'debts.currency',
      'debts.amount_remaining',
      'debts.status',
      'debts.created_at',
    );
}

/** The customer's own language: `contact_preferences.language`, else `preferred_locale` (BCP 47), else null. */
export async function customerLanguage(db: Knex | Knex.Transaction, tenantId: string, customerId: string): Promise<string | null> {
  const row = await tenantRows(db, customersResource, tenantId)
    .where('customers.id', customerId)
    .first<{ language: string | null } | undefined>(db.raw(`coalesce(customers.contact_preferences->>'language', customers.preferred_locale) AS language`));
  return row?.language ?? null;
}
