/**
 * Stored income and expenditure statements (docs/api.md section 19): `createIncomeAndExpenditure`
 * validates a statement (every problem named, `validateStatement`), converts each entry to monthly
 * and computes the disposable income with the one tested arithmetic (statement.ts), and stores it
 * with its event `income_and_expenditure.created` in one transaction. Reads go through the scoped
 * finder; the latest statement of a debt is what offers are capped by (affordability.ts).
 */
import type { Knex } from '@dms/db';
import { newId } from '@dms/ids';
import type { DebtRow } from '../debts/schemas.js';
import { debtsResource } from '../debts/resource.js';
import { recordEvent } from '../kernel/outbox.js';
import { iso } from '../kernel/schemas.js';
import { findOwned, tenantRows } from '../kernel/scoped.js';
import { affordableInstalmentCap } from './affordability.js';
import { detailsOf, sealedDetailsColumns } from './sealed.js';
import { incomeAndExpendituresResource } from './resource.js';
import type { IncomeAndExpenditure, IncomeAndExpenditureRow } from './schemas.js';
import { STATEMENT_GROUPS, disposableIncome, groupTotal, normaliseStatement, type StatementGroup, type StoredStatement } from './statement.js';

const resource = incomeAndExpendituresResource;
const TABLE = resource.table;
const GROUPS = Object.keys(STATEMENT_GROUPS) as StatementGroup[];

/** The statement a row holds: household from its columns, each group's entries as stored (opened when sealed, sealed.ts). */
export function statementOf(row: IncomeAndExpenditureRow): StoredStatement {
  return { household: { adults: row.adults, children: row.children, vehicles: row.vehicles }, ...detailsOf(row) };
}

/** Maps a row to the public object (group totals computed from the stored monthly figures). */
export function toIncomeAndExpenditure(row: IncomeAndExpenditureRow): IncomeAndExpenditure {
  const statement = statementOf(row);
  return {
    id: row.id,
    object: 'income_and_expenditure',
    debt: row.debt_id,
    customer: row.customer_id,
    currency: row.currency,
    ...statement,
    totals: Object.fromEntries(GROUPS.map((g) => [g, groupTotal(statement, g)])) as Record<StatementGroup, number>,
    disposable_income: Number(row.disposable_income),
    created_by: row.whodunnit,
    created_at: iso(row.created_at)!,
  };
}

/**
 * `POST /debts/{debtId}/income_and_expenditures` (and the portal's check-your-answers page):
 * stores a statement about the tenant's debt `debtId` for its customer, with its event.
 * @param input the statement as entered (household and every money group; amounts in minor units per period)
 * @param whodunnit who gave it: `customer:<id>` from the portal, else the tenant's client id
 * @returns the stored statement, entries with their monthly figures, `disposable_income` per month
 * @throws ApiError 404 `resource_missing` (no such debt of the tenant), 400 `validation_failed`
 *   naming the first bad field with every problem in `errors` (nothing stored)
 */
export async function createIncomeAndExpenditure(db: Knex, tenantId: string, debtId: string, input: unknown, whodunnit: string): Promise<IncomeAndExpenditure> {
  const statement = normaliseStatement(input);
  return db.transaction(async (trx) => {
    const debt = await findOwned<DebtRow>(trx, debtsResource, tenantId, debtId, { forUpdate: true });
    const [row] = (await trx(resource.table)
      .insert({
        id: newId(resource.idPrefix),
        tenant_id: tenantId,
        debt_id: debt.id,
        customer_id: debt.customer_id,
        currency: debt.currency,
        ...statement.household,
        ...sealedDetailsColumns(statement),
        disposable_income: disposableIncome(statement),
        whodunnit,
      })
      .returning('*')) as IncomeAndExpenditureRow[];
    const object = toIncomeAndExpenditure(row!);
    await recordEvent(trx, resource, tenantId, 'income_and_expenditure.created', object);
    return object;
  });
}

/** The tenant's statements of debt `debtId` (a query to page or narrow further). */
export function statementsOfDebt(db: Knex | Knex.Transaction, tenantId: string, debtId: string): Knex.QueryBuilder {
  return tenantRows(db, resource, tenantId).where(`${TABLE}.debt_id`, debtId);
}

/** The latest statement of the tenant's debt `debtId`, or null when none was given. */
export async function latestIncomeAndExpenditure(db: Knex | Knex.Transaction, tenantId: string, debtId: string): Promise<IncomeAndExpenditureRow | null> {
  const row = (await statementsOfDebt(db, tenantId, debtId).orderBy(`${TABLE}.seq`, 'desc').first()) as IncomeAndExpenditureRow | undefined;
  return row ?? null;
}

/**
 * What the latest statement of the tenant's debt `debtId` affords, as `offers()` takes it
 * (payment-plans/offers.ts): `cap`, `sharePercent` of its disposable income a month, rounded down
 * (0 when nothing is left).
 * @param sharePercent `configurations.portal.disposable_income_share` of the debt's organisation (1-100; `disposableIncomeShare`)
 * @returns undefined when no statement was given for the debt (offers are then the policy's alone)
 */
export async function debtAffordability(
  db: Knex | Knex.Transaction,
  tenantId: string,
  debtId: string,
  sharePercent: number,
): Promise<{ cap: number } | undefined> {
  const latest = await latestIncomeAndExpenditure(db, tenantId, debtId);
  return latest ? { cap: affordableInstalmentCap(statementOf(latest), sharePercent) } : undefined;
}
