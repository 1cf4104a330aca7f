/**
 * What the portal's "propose a plan" pages need about a customer's debt (docs/api.md section 18
 * "Proposals"): its balance and currency, its organisation's `payment_options_configuration` (the
 * policy `withinPolicy` reads) and its latest income and expenditure statement, if any.
 */
import type { Knex } from '@dms/db';
import { debtsResource } from '../debts/resource.js';
import { latestIncomeAndExpenditure } from '../income-and-expenditure/store.js';
import { tenantRows } from '../kernel/scoped.js';
import { organisationsResource } from '../organisations/resource.js';
import type { OfferPolicy } from '../payment-plans/offers.js';

/** A customer's debt as the propose pages see it; amounts in minor units. */
export interface ProposeContext {
  balance: number;
  currency: string;
  policy: OfferPolicy;
  /** Id of the debt's latest statement, or null when the customer has given none. */
  statementId: string | null;
}

/**
 * The tenant's debt `debtId` of customer `customerId` (not deleted) as the propose pages see it.
 * @returns undefined when it is not this customer's (the page is then 404)
 */
export async function proposeContext(db: Knex, tenantId: string, customerId: string, debtId: string): Promise<ProposeContext | undefined> {
  const row = await tenantRows(db, debtsResource, tenantId)
    .join(tenantRows(db, organisationsResource, tenantId).select('id', 'payment_options_configuration').as('o'), 'o.id', 'debts.organisation_id')
    .where({ 'debts.id': debtId, 'debts.customer_id': customerId })
    .whereNot('debts.status', 'deleted')
    .first<{ amount_remaining: number; currency: string; options: OfferPolicy | null } | undefined>(
      'debts.amount_remaining',
      'debts.currency',
      'o.payment_options_configuration as options',
    );
  if (!row) return undefined;
  const latest = await latestIncomeAndExpenditure(db, tenantId, debtId);
  return { balance: Number(row.amount_remaining), currency: row.currency, policy: row.options ?? {}, statementId: latest?.id ?? null };
}
