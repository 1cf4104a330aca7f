/**
 * `/debts/{debtId}/income_and_expenditures` (docs/api.md section 18): list a debt's income and
 * expenditure statements and record one (a statement the tenant took by phone), behind
 * `debts:read` / `debts:write`. Another tenant's (or mode's, or no) debt is 404, for the list too.
 * The body is checked against the statement's schema (every bad field named, nothing stored).
 */
import { debtsResource } from '@dms/domain/debts';
import {
  IncomeAndExpenditure,
  IncomeAndExpenditureCreate,
  createIncomeAndExpenditure,
  incomeAndExpendituresResource,
  toIncomeAndExpenditure,
  type IncomeAndExpenditureRow,
} from '@dms/domain/income-and-expenditure';
import { actor, defineOperation, type AnyOperation } from '../../operations/operation.js';
import { listPage, nestedUnder } from '../../operations/lists.js';
import { pageQuery } from '../../operations/query.js';
import { crud } from '../../operations/crud.js';

const names = crud({
  resource: incomeAndExpendituresResource,
  path: '/debts/{debtId}/income_and_expenditures',
  tag: 'Income and expenditures',
  read: 'debts:read',
  write: 'debts:write',
  parentParams: { debtId: debtsResource.idPrefix },
});
const object = { name: 'IncomeAndExpenditure', schema: IncomeAndExpenditure };
const underDebt = nestedUnder(debtsResource, 'debtId', `${incomeAndExpendituresResource.table}.debt_id`);

/** The operations of `/debts/{debtId}/income_and_expenditures`. */
export const incomeAndExpenditureOperations: AnyOperation[] = [
  defineOperation({
    ...names.list,
    operationId: 'listIncomeAndExpenditures',
    summary: "List a debt's income and expenditure statements",
    description: 'Newest first (the first is the one offers are capped by), paginated with `limit`/`after`/`before`.',
    query: pageQuery(),
    response: { ...object, status: 200, list: true },
    handler: async (i) => {
      const debt = await underDebt(i);
      return listPage<IncomeAndExpenditureRow, IncomeAndExpenditure>(i, {
        resource: incomeAndExpendituresResource,
        narrow: debt.narrow,
        counter: () => ['debt_income_and_expenditures', debt.id],
        serialize: (rows) => rows.map(toIncomeAndExpenditure),
      });
    },
  }),
  defineOperation({
    ...names.create,
    operationId: 'createIncomeAndExpenditure',
    summary: 'Record an income and expenditure statement',
    description:
      "A statement the customer gave (e.g. by phone) for the debt's customer: `household` and every money group with every entry `{amount, frequency}` (minor units per week, fortnight or month, 0 to 1,000,000,000). Each entry is stored with its `monthly` figure (rounded half up) and `disposable_income` is computed. Statements are never changed: a new one supersedes the old for offers.",
    body: { name: 'IncomeAndExpenditureCreate', schema: IncomeAndExpenditureCreate },
    response: { ...object, status: 201 },
    events: ['income_and_expenditure.created'],
    handler: (i) => createIncomeAndExpenditure(i.ctx.db, i.tenantId, i.params.debtId, i.body, actor(i).whodunnit),
  }),
];
